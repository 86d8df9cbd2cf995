// The official TypeScript SDK v2 client, for `mrtr-studio check-client`: it answers the server's questions
// only through the SDK's request handlers, so the grade judges the SDK's own loop.
//
// Usage: node ts_sdk_check_client.mjs <sdk node_modules folder> <server MCP url> <2025-11-25|2026-07-28>
// Calls test_elicitation (elicitation) and count_roots (roots); exit 0 when both complete.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [modules, url, era] = process.argv.slice(2);
if (!modules || !url || !era) {
    console.error('usage: node ts_sdk_check_client.mjs <sdk node_modules folder> <url> <era>');
    process.exit(2);
}
const sdk = await import(pathToFileURL(path.join(modules, '@modelcontextprotocol', 'client', 'dist', 'index.mjs')).href);
const { Client, StreamableHTTPClientTransport } = sdk;
const client = new Client({ name: 'mrtr-check-ts', version: '1.0.0' }, {
    capabilities: { elicitation: { form: {} }, roots: {} },
    // the SDK's default ('legacy') never speaks 2026-07-28; a pin does
    versionNegotiation: era === '2026-07-28' ? { mode: { pin: era } } : undefined,
});
client.setRequestHandler('elicitation/create', async () => (
    { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }));
client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
let failed = false;
try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 20000 });
    for (const [name, args] of [['test_elicitation', { message: 'Who are you?' }], ['count_roots', {}]]) {
        const result = await client.callTool({ name, arguments: args }, { timeout: 20000 });
        const text = (result.content ?? []).map(c => c.text ?? '').join(' ');
        console.log(`${name}: ${result.isError ? 'error ' : ''}${text}`);
        failed ||= Boolean(result.isError);
    }
} catch (error) {
    console.error(`failed: ${error?.message ?? error}`);
    failed = true;
} finally {
    await client.close().catch(() => {});
}
process.exit(failed ? 1 : 0);
