/** Baseline: bare Koa answering POST /api/mcp with fixed bytes (the MCP service's tools/list reply). */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import Koa from 'koa';

const body = process.env.BENCH_BODY_FILE ? readFileSync(process.env.BENCH_BODY_FILE) : Buffer.from('{}');
const app = new Koa();
app.use(async (ctx) => {
  for await (const _chunk of ctx.req);
  ctx.type = 'application/json';
  ctx.body = body;
});
http
  .createServer(app.callback())
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
// An exit rather than death by the signal, so that a profiler (--cpu-prof) writes its profile.
process.once('SIGTERM', () => process.exit(0));
