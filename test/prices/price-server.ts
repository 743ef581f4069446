// A loopback HTTP server that answers like the ENTSO-E API (fixtures.ts), with a day's answer chosen
// by the test, and records every request.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export interface PriceServer {
  url: string;
  requests: URL[];
  /** The answer for a request, by its URL (periodStart of ENTSO-E, start of Energy-Charts ...). */
  answer: (url: URL, request: IncomingMessage) => Answer;
  close(): Promise<void>;
}

export async function startPriceServer(answer: PriceServer['answer']): Promise<PriceServer> {
  const requests: URL[] = [];
  const state: PriceServer = {
    url: '',
    requests,
    answer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(url);
    request.resume();
    request.on('end', () => {
      const { status, body, headers } = state.answer(url, request);
      response.writeHead(status, { 'content-type': 'application/xml', ...headers });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
