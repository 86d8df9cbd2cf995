// Regenerates ts_sdk.json from the TypeScript SDK's own codec (our script; the SDK is not committed):
//   npm install --prefix /tmp/tssdk @modelcontextprotocol/server@2.4.0
//   NODE_PATH=/tmp/tssdk/node_modules node tests/states/vectors/make_ts_sdk_vectors.mjs > tests/states/vectors/ts_sdk.json
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const { createRequestStateCodec } = require(process.env.NODE_PATH + "/@modelcontextprotocol/server");

const key = "k".repeat(16) + "-ts-sdk-test-key-32b";
const ttlSeconds = 10 * 365 * 24 * 3600; // long-lived so the committed vectors stay unexpired
const plain = createRequestStateCodec({ key, ttlSeconds });
const bound = createRequestStateCodec({ key, ttlSeconds, bind: (ctx) => `${ctx.mcpReq.method}\0alice` });
const expired = createRequestStateCodec({ key, ttlSeconds: -60 });
const payload = { step: 2, asked: ["confirm"], note: "héllo" };
const ctx = { mcpReq: { method: "tools/call" } };
const vectors = {
  sdk: "@modelcontextprotocol/server@2.4.0",
  key,
  payload,
  plain: await plain.mint(payload),
  bound: await bound.mint(payload, ctx),
  bind_value: "tools/call\u0000alice",
  expired: await expired.mint(payload),
};
for (const [name, codec, c] of [["plain", plain, undefined], ["bound", bound, ctx]]) {
  const back = await codec.verify(vectors[name], c);
  if (JSON.stringify(back) !== JSON.stringify(payload)) throw new Error(`${name} does not verify`);
}
console.log(JSON.stringify(vectors, null, 2));
