// The official TypeScript SDK v2 client against `mrtr-studio serve`: what it completes, per wire era.
//
// Usage: node ts_sdk_client.mjs <sdk node_modules folder> <server MCP url>
// Prints one JSON object per line: {"flow": ..., "era": ..., "status": "passed"|"failed"|"unsupported", "detail": ...}.
// "unsupported" means the SDK itself rejects the flow (a typed SdkError naming a result type or method
// it cannot handle), which is a finding about the SDK, not a failure of the server. Exit 0 once every
// flow has been tried (the caller decides what must pass); exit 2 on bad usage.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [modules, url] = process.argv.slice(2);
if (!modules || !url) {
    console.error('usage: node ts_sdk_client.mjs <sdk node_modules folder> <server MCP url>');
    process.exit(2);
}
const sdk = await import(pathToFileURL(path.join(modules, '@modelcontextprotocol', 'client', 'dist', 'index.mjs')).href);
const { Client, StreamableHTTPClientTransport, SdkError, SdkErrorCode } = sdk;

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
// Modern connections are pinned: the SDK's default ('legacy') never speaks 2026-07-28.
const ERAS = { '2025-11-25': undefined, '2026-07-28': { mode: { pin: '2026-07-28' } }, auto: { mode: 'auto' } };
const TIMEOUT_MS = 20000;
const ROOT_URI = 'file:///work';
const LEGACY_INPUT_MESSAGE = 'input_required needs protocol 2026-07-28';

// Accept a form: every field's default, booleans true (so every confirmation is a yes).
function formAnswer(schema) {
    const content = {};
    for (const [key, field] of Object.entries(schema?.properties ?? {})) {
        content[key] = field.default ?? (field.type === 'boolean' ? true : 'yes');
    }
    return content;
}

function report(flow, era, status, detail) {
    console.log(JSON.stringify({ flow, era, status, detail }));
}

function textOf(result) {
    return (result?.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
}

// A typed SDK refusal of a result kind or method it does not implement: a statement about the SDK.
function sdkRefusal(error) {
    return error instanceof SdkError && [SdkErrorCode.UnsupportedResultType,
        SdkErrorCode.MethodNotSupportedByProtocolVersion].includes(error.code);
}

async function connect(era, extraCapabilities = {}) {
    const elicited = [];
    const client = new Client({ name: 'mrtr-interop-ts', version: '1.0.0' }, {
        capabilities: { elicitation: { form: {} }, roots: {}, ...extraCapabilities },
        versionNegotiation: ERAS[era],
    });
    // The same handlers serve a 2025 server->client request and a 2026 embedded input request.
    client.setRequestHandler('elicitation/create', async request => {
        elicited.push(request.params.message);
        return { action: 'accept', content: formAnswer(request.params.requestedSchema) };
    });
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: ROOT_URI, name: 'work' }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: TIMEOUT_MS });
    return { client, elicited };
}

async function attempt(flow, era, body, extraCapabilities) {
    let session;
    try {
        session = await connect(era, extraCapabilities);
        const detail = await body(session);
        report(flow, era, 'passed', detail);
    } catch (error) {
        const what = `${error?.constructor?.name ?? 'Error'}: ${error?.message ?? error}`;
        report(flow, era, sdkRefusal(error) ? 'unsupported' : 'failed', what);
    } finally {
        await session?.client.close().catch(() => {});
    }
}

// 'auto' probes with server/discover and must settle on the modern wire.
await attempt('auto negotiation', 'auto', async ({ client }) => {
    const negotiated = client.getNegotiatedProtocolVersion?.();
    if (negotiated !== '2026-07-28') throw new Error(`negotiated ${negotiated}, expected 2026-07-28`);
    return `negotiated ${negotiated}`;
});
for (const era of ['2025-11-25', '2026-07-28']) {
    await attempt('connect+tools/list', era, async ({ client }) => {
        const negotiated = client.getNegotiatedProtocolVersion?.() ?? '?';
        const { tools } = await client.listTools();
        const names = tools.map(t => t.name);
        for (const needed of ['delete_file', 'long_report']) {
            if (!names.includes(needed)) throw new Error(`${needed} is not listed (got ${names.join(', ')})`);
        }
        return `negotiated ${negotiated}; ${tools.length} tools`;
    });
    await attempt('count_roots', era, async ({ client }) => {
        const text = textOf(await client.callTool({ name: 'count_roots', arguments: {} }, { timeout: TIMEOUT_MS }));
        if (text !== `1 root(s): ${ROOT_URI}`) throw new Error(`unexpected result ${JSON.stringify(text)}`);
        return `"${text}"`;
    });
}
// delete_file is modern only by design: a 2025-era call must get -32603 with the server's message.
await attempt('delete_file (legacy refusal)', '2025-11-25', async ({ client }) => {
    try {
        await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/report.txt' } }, { timeout: TIMEOUT_MS });
    } catch (error) {
        if (error?.code === -32603 && String(error.message).includes(LEGACY_INPUT_MESSAGE)) {
            return `-32603 "${LEGACY_INPUT_MESSAGE}", as designed`;
        }
        throw error;
    }
    throw new Error('the call completed; it should have been refused on the 2025-11-25 wire');
});
await attempt('delete_file (MRTR retry)', '2026-07-28', async ({ client, elicited }) => {
    const result = await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/report.txt' } },
        { timeout: TIMEOUT_MS });
    const text = textOf(result);
    if (text !== 'File deleted') throw new Error(`expected "File deleted", got ${JSON.stringify(text)}`);
    if (elicited.length !== 1) throw new Error(`expected one elicitation, the handler saw ${elicited.length}`);
    return `elicited ${JSON.stringify(elicited[0])}, then "${text}"`;
});
await attempt('deploy_wizard (3 rounds, requestState)', '2026-07-28', async ({ client, elicited }) => {
    const text = textOf(await client.callTool({ name: 'deploy_wizard', arguments: {} }, { timeout: TIMEOUT_MS }));
    if (text !== 'Deployed 1.0.0 to staging') throw new Error(`unexpected result ${JSON.stringify(text)}`);
    if (elicited.length !== 3) throw new Error(`expected three elicitations, the handler saw ${elicited.length}`);
    return `${elicited.length} elicitations, then "${text}"`;
});
// The tasks extension exists only on the 2026-07-28 wire: declare it and run the demo task.
await attempt('long_report (tasks extension)', '2026-07-28', async ({ client, elicited }) => {
    const result = await client.callTool({ name: 'long_report', arguments: { sections: 2, seconds_per_section: 0.05 } },
        { timeout: TIMEOUT_MS });
    const text = textOf(result);
    if (!text.includes('sections written')) throw new Error(`unexpected result ${JSON.stringify(text)}`);
    return `elicited ${elicited.length} time(s), then "${text}"`;
}, { extensions: { [TASKS_EXTENSION]: {} } });
