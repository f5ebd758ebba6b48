import http from 'node:http';

/**
 * Whether a Docker engine answers, so Testcontainers can be used. Machines without one (CI here,
 * many laptops) fall back to the embedded servers instead of failing.
 */
export async function dockerEngineAvailable(): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  const target: http.RequestOptions =
    host && host.startsWith('tcp://')
      ? { host: new URL(host.replace('tcp://', 'http://')).hostname, port: new URL(host.replace('tcp://', 'http://')).port }
      : { socketPath: host?.startsWith('unix://') ? host.slice('unix://'.length) : '/var/run/docker.sock' };
  return new Promise((resolve) => {
    const request = http.get({ ...target, path: '/_ping', timeout: 1_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}
