// A free TCP port on 127.0.0.1 for the benchmarks that start the server as its own process.
import net from 'node:net';

/** Ask the OS for a free port (bound and released at once; a race with another process is possible). */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
