/**
 * A real local HTTP server that speaks just enough of the OpenAI chat-completions API for tests.
 * Node only: never import it from browser code.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path with query, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** Header names are lower-case, as Node gives them. */
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly body: unknown;
}

/** What to answer. Every field is optional. */
export interface FakeReply {
  /** @default 200 */
  readonly status?: number;
  /** A string is sent as is; anything else as JSON. @default completionBody(FAKE_COMPLETION_TEXT) */
  readonly body?: unknown;
  /** Wait this long before answering (to trigger client timeouts). @default 0 */
  readonly delayMs?: number;
  /** @default { 'content-type': 'application/json' } */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Decides the reply to each request; may be async. Return undefined for the default reply. */
export type FakeHandler = (request: RecordedRequest) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface FakeOpenAiServer {
  /** Base URL to hand to `createOpenAiProvider`, e.g. `http://127.0.0.1:51234/v1`. */
  readonly url: string;
  /** Every request so far, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Stops the server, drops open connections and pending delayed replies. */
  close(): Promise<void>;
}

/** The assistant text of the default reply. */
export const FAKE_COMPLETION_TEXT = 'This is the fake model speaking.';

/** A minimal chat-completion response body carrying `content`. */
export function completionBody(content: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** A chat-completion response body in which the model calls one tool with `args` (sent as JSON text). */
export function toolCallBody(callId: string, name: string, args: unknown): Record<string, unknown> {
  return {
    id: 'chatcmpl-tools',
    object: 'chat.completion',
    created: 0,
    model: 'fake-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/**
 * Starts the server on 127.0.0.1 with a free port. Close it in `afterEach`.
 * @example
 * const server = await startFakeOpenAiServer(() => ({ status: 500, body: { error: { message: 'boom' } } }));
 * const llm = createOpenAiProvider({ baseUrl: server.url, model: 'm' });
 */
export async function startFakeOpenAiServer(handler?: FakeHandler): Promise<FakeOpenAiServer> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        body: parseJson(rawBody),
      };
      requests.push(recorded);
      Promise.resolve(handler === undefined ? undefined : handler(recorded)).then(
        (reply) => scheduleReply(res, reply ?? {}, timers),
        (error: unknown) => send(res, { status: 500, body: { error: { message: `fake handler threw: ${String(error)}` } } }),
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

function scheduleReply(res: ServerResponse, reply: FakeReply, timers: Set<NodeJS.Timeout>): void {
  const delayMs = reply.delayMs === undefined ? 0 : reply.delayMs;
  if (delayMs <= 0) {
    send(res, reply);
    return;
  }
  const timer = setTimeout(() => {
    timers.delete(timer);
    send(res, reply);
  }, delayMs);
  timers.add(timer);
}

function send(res: ServerResponse, reply: FakeReply): void {
  if (res.destroyed) return; // The client gave up (timeout or abort).
  const body = reply.body === undefined ? completionBody(FAKE_COMPLETION_TEXT) : reply.body;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(reply.status === undefined ? 200 : reply.status, reply.headers ?? { 'content-type': 'application/json' });
  res.end(text);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // Recorded as rawBody only; tests of malformed requests read that.
  }
}
