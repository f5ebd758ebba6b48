import http from 'node:http';

/**
 * Whether a Docker engine answers, so Testcontainers can be used. Machines without one (CI here,
 * many laptops) fall back to the embedded servers instead of failing.
 */
export async function dockerEngineAvailable(): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  let target: http.RequestOptions = { socketPath: '/var/run/docker.sock' };
  if (host?.startsWith('tcp://')) {
    const url = new URL(host.replace('tcp://', 'http://'));
    target = { host: url.hostname, port: url.port };
  } else if (host?.startsWith('unix://')) {
    target = { socketPath: host.slice('unix://'.length) };
  }
  return new Promise((resolve) => {
    const request = http.get({ ...target, path: '/_ping', timeout: 1_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}
