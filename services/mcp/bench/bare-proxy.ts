/**
 * Baseline for bench:latency: the least any Node service between the client and Google can add.
 * It reads a POST, asks the emulator for values.get of BENCH_VALUES_URL with node:http on a
 * keep-alive agent (the bearer token of BENCH_GOOGLE_TOKEN), and answers the body wrapped in a
 * JSON-RPC result — no authentication, parsing, validation, quota or logging. Pinned to the MCP
 * service's core, its time over the raw call is the cost of the extra hop itself on this machine.
 */
import http from 'node:http';

const valuesUrl = new URL(process.env.BENCH_VALUES_URL ?? 'http://127.0.0.1:1/');
const authorization = `Bearer ${process.env.BENCH_GOOGLE_TOKEN ?? ''}`;
const agent = new http.Agent({ keepAlive: true });

function valuesGet(): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(valuesUrl, { agent, headers: { authorization } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

http
  .createServer(async (req, res) => {
    for await (const _chunk of req);
    const values = await valuesGet();
    const body = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":${JSON.stringify(values)}}]}}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
// An exit rather than death by the signal, as the other baselines.
process.once('SIGTERM', () => process.exit(0));
