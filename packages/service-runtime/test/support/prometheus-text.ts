/**
 * Reads Prometheus's text exposition format (what `/metrics` answers) into samples, so tests can
 * ask "how many requests to /api/mcp answered 2xx" instead of matching strings. Only what
 * prom-client writes: `# HELP`/`# TYPE` comments, `name{label="value",…} number` lines.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[name!] = value!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** `GET {url}/metrics`, parsed; throws unless it answers 200 in the Prometheus text format. */
export async function scrapeMetrics(url: string): Promise<Sample[]> {
  const response = await fetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`${url}/metrics answered ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain')) throw new Error(`${url}/metrics is ${type}, not text/plain`);
  return parsePrometheusText(await response.text());
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
