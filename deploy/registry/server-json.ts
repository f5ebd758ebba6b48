import { z } from 'zod';

/**
 * The official MCP Registry's server.json (registry.modelcontextprotocol.io), for one Sheetgate
 * deployment: its streamable-http endpoint under the operator's own name. Written against the
 * 2025-12-11 schema (modelcontextprotocol/registry, internal/validators/schemas/2025-12-11.json;
 * docs/modelcontextprotocol-io/remote-servers.mdx for `remotes`); deploy/README.md says how to
 * publish it.
 */
export const SERVER_JSON_SCHEMA =
  'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** What serverInfo says (services/mcp/src/protocol/mcp-server.ts): at most 100 characters here. */
const DEFAULT_DESCRIPTION = 'Google Sheets and Drive spreadsheets, for the person who signed in.';

/** Names the registry's hosts refuse in a remote's URL (the registry's IsValidRemoteURL). */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The settings, from the environment. The name's namespace is the publisher's: `io.github.<user>`
 * after GitHub sign-in, or the reverse of a domain the operator proves with DNS or HTTP.
 */
export const serverJsonSettings = z.object({
  MCP_REGISTRY_NAME: z
    .string({
      error: 'MCP_REGISTRY_NAME is not set (e.g. com.example/sheetgate or io.github.alice/sheetgate)',
    })
    .min(3)
    .max(200)
    .regex(
      /^[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+\/[a-zA-Z0-9._-]+$/,
      'MCP_REGISTRY_NAME must be reverse-DNS namespace/name with one slash, e.g. com.example/sheetgate',
    ),
  BASE_URL: z
    .string({ error: 'BASE_URL is not set (the deployment’s public origin)' })
    .refine((value) => {
      const url = URL.parse(value);
      return (
        url !== null &&
        url.protocol === 'https:' &&
        !LOCAL_HOSTS.has(url.hostname) &&
        (url.pathname === '/' || url.pathname === '') &&
        !url.search &&
        !url.hash &&
        !url.username &&
        !url.password
      );
    }, 'BASE_URL must be the public https origin, e.g. https://sheets.example.com (the registry lists only public servers)')
    .transform((value) => value.replace(/\/+$/, '')),
  MCP_REGISTRY_DESCRIPTION: z
    .string()
    .min(1)
    .max(100, 'MCP_REGISTRY_DESCRIPTION must be at most 100 characters (the registry’s limit)')
    .default(DEFAULT_DESCRIPTION),
});

export type ServerJsonSettings = z.infer<typeof serverJsonSettings>;

/** Reads the settings from `env`; throws one line per bad setting. */
export function readServerJsonSettings(env: NodeJS.ProcessEnv): ServerJsonSettings {
  const input = Object.fromEntries(
    Object.keys(serverJsonSettings.shape).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const parsed = serverJsonSettings.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new Error(parsed.error.issues.map((issue) => issue.message).join('\n'));
}

/** The document; `version` is the MCP service's package version. */
export function buildServerJson(settings: ServerJsonSettings, version: string) {
  const baseUrl = settings.BASE_URL;
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: settings.MCP_REGISTRY_NAME,
    title: 'Sheetgate',
    description: settings.MCP_REGISTRY_DESCRIPTION,
    version,
    websiteUrl: `${baseUrl}/`,
    icons: [{ src: `${baseUrl}/icon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] }],
    remotes: [{ type: 'streamable-http', url: `${baseUrl}/api/mcp` }],
  };
}
