/**
 * A V8 `.cpuprofile` summed for a reader: self time by part of the code and the heaviest
 * functions, over the samples taken within a window (microseconds of the monotonic clock, which
 * both V8's profiler and `process.hrtime` read on Linux).
 */

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Node's own native functions that write to a socket (the JS side is `stream_base_commons`). */
const SOCKET_WRITES = new Set([
  'writev',
  'writeBuffer',
  'writeUtf8String',
  'writeLatin1String',
  'writeAsciiString',
]);

/** Our own files, by what they do on the hot path. */
const OWN_FILES: Array<[RegExp, string]> = [
  [/service-runtime\/src\/http-service\.ts$/, 'healthRoutes + requestLog (service-runtime)'],
  [/service-runtime\/src\/http-errors\.ts$/, 'jsonErrors (service-runtime)'],
  [/service-runtime\/src\/metrics\.ts$/, 'HTTP metrics (service-runtime)'],
  [/service-runtime\/src\/logger\.ts$/, 'logger (service-runtime)'],
  [/service-runtime\/src\//, 'service-runtime, other'],
  [/services\/mcp\/src\/auth\//, 'authentication (mcp/src/auth)'],
  [/services\/mcp\/src\/protocol\/mcp-endpoint\.ts$/, 'MCP endpoint (protocol/mcp-endpoint)'],
  [/services\/mcp\/src\/protocol\/json-rpc\.ts$/, 'JSON-RPC (protocol/json-rpc)'],
  [/services\/mcp\/src\/protocol\//, 'protocol, other files'],
  [/services\/mcp\/src\//, 'mcp/src, other'],
];

/** What part of the code a frame belongs to. */
export function partOf(frame: ProfileNode['callFrame']): string {
  const { functionName, url } = frame;
  if (functionName === '(idle)') return 'idle (waiting in the event loop)';
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'V8/native outside JS ((program))';
  if (functionName === '(root)') return '(root)';
  if (!url)
    return SOCKET_WRITES.has(functionName)
      ? 'socket writes (native)'
      : `builtin ${functionName || '(anonymous)'}`;
  for (const [pattern, part] of OWN_FILES) if (pattern.test(url)) return part;
  const modules = url.split('/node_modules/');
  if (modules.length > 1) {
    const rest = modules.at(-1)!.split('/');
    const name = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    if (name === 'jose') return 'authentication (jose)';
    return `package ${name}`;
  }
  if (url.startsWith('node:')) {
    const module = url.slice('node:'.length);
    if (module === 'internal/stream_base_commons') return 'socket writes (node:internal/stream_base_commons)';
    if (module.startsWith('internal/streams/')) return 'node streams';
    if (module.startsWith('_http_')) return `node HTTP (${module})`;
    return `node ${module}`;
  }
  return url;
}

const shortUrl = (url: string) => {
  const modules = url.split('/node_modules/');
  if (modules.length > 1) return modules.at(-1)!;
  const repo = url.indexOf('/services/') >= 0 ? url.indexOf('/services/') : url.indexOf('/packages/');
  return repo >= 0 ? url.slice(repo + 1) : url;
};

export interface ProfileSums {
  /** Microseconds of samples in the window. */
  total: number;
  byPart: Map<string, number>;
  byFunction: Map<string, number>;
}

/** Self time (µs) of the samples taken within the window, by part of the code and by function. */
export function sumProfile(profile: Profile, window: { fromMicros: number; toMicros: number }): ProfileSums {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  let time = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i]!;
    // A sample stands for the time until the next one.
    const duration = profile.timeDeltas[i + 1] ?? 0;
    if (time < window.fromMicros || time > window.toMicros) continue;
    selfMicros.set(profile.samples[i]!, (selfMicros.get(profile.samples[i]!) ?? 0) + duration);
    total += duration;
  }
  const byPart = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)!.callFrame;
    const part = partOf(frame);
    byPart.set(part, (byPart.get(part) ?? 0) + micros);
    const name = `${frame.functionName || '(anonymous)'}  ${frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  return { total, byPart, byFunction };
}
