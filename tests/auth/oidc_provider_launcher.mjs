// A real authorization server for the OAuth tests: panva's oidc-provider (9.x) in its default configuration
// (DPoP on, resource indicators on), on 127.0.0.1 with a random port.
//
// Usage: node oidc_provider_launcher.mjs <oidc-provider package dir> <client secret> <redirect URI> [<client JWK file>]
// Prints one line, `issuer <URL>`, once it listens, and exits when its stdin closes (so it never outlives the test).
//
// What differs from the defaults, and why:
// - a pre-registered confidential client (`mrtr-studio`, client_secret_basic) with the loopback redirect URI:
//   registration is off by default, as on most real servers;
// - with a client JWK file, a second client (`mrtr-studio-key`, private_key_jwt) for the client-credentials grant,
//   which is therefore enabled;
// - `getResourceServerInfo`: every resource indicator gets JWT access tokens (RS256) with `aud` = the resource and
//   scope `mcp`, which is what `mrtr-studio serve --auth jwt --issuer ... --audience <resource>` verifies
//   (the default throws: oidc-provider requires the application to describe its resource servers);
// - the interaction (login and consent) is completed without a page: the user `alice` is signed in and the
//   requested scopes are granted, like the studio's own demo authorization server. oidc-provider leaves the
//   interaction to the application (its devInteractions are a development form); this is the smallest one.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [packageDir, secret, redirectUri, jwkFile] = process.argv.slice(2);
if (!packageDir || !secret || !redirectUri) {
  process.stderr.write('usage: oidc_provider_launcher.mjs PACKAGE_DIR CLIENT_SECRET REDIRECT_URI [JWK_FILE]\n');
  process.exit(2);
}
const { default: Provider } = await import(pathToFileURL(path.join(packageDir, 'lib', 'index.js')).href);

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const clients = [{
  client_id: 'mrtr-studio',
  client_secret: secret,
  redirect_uris: [redirectUri],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
}];
if (jwkFile) {
  clients.push({
    client_id: 'mrtr-studio-key',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [JSON.parse(readFileSync(jwkFile, 'utf8'))] },
  });
}

const provider = new Provider(issuer, {
  clients,
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: Boolean(jwkFile) },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resourceIndicator) => ({
        scope: 'mcp',
        audience: resourceIndicator,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});

const callback = provider.callback();
server.on('request', async (req, res) => {
  const match = /^\/interaction\/([\w-]+)$/.exec(req.url.split('?')[0]);
  if (!match || req.method !== 'GET') {
    callback(req, res);
    return;
  }
  try {
    const details = await provider.interactionDetails(req, res);
    const { params } = details;
    const grant = new provider.Grant({ accountId: 'alice', clientId: params.client_id });
    if (params.scope) grant.addOIDCScope(params.scope);
    if (params.resource) {
      for (const resource of [].concat(params.resource)) grant.addResourceScope(resource, params.scope || 'mcp');
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: 'alice' }, consent: { grantId } },
      { mergeWithLastSubmission: false });
  } catch (error) {
    res.statusCode = 400;
    res.setHeader('Content-Type', 'text/plain');
    res.end(`interaction failed: ${error.message}\n`);
  }
});

process.stdout.write(`issuer ${issuer}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
