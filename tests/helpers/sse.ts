import { eventually } from './eventually';

export interface SseEvent {
  id: string | null;
  event: string;
  data: any;
}

/**
 * A server-sent events client for tests: opens the stream with fetch, parses every event and
 * comment as it arrives (`events`, `comments`), and waits for conditions (`waitFor`).
 */
export interface SseStream {
  status: number;
  headers: Headers;
  /** The body when the server answered without a stream (an error). */
  body: any;
  events: SseEvent[];
  comments: string[];
  waitFor(pred: (e: SseEvent) => boolean, what: string, ms?: number): Promise<SseEvent>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let body: any = null;
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await res.text();
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  } else {
    void (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let id: string | null = null;
            let event = 'message';
            const data: string[] = [];
            let isEvent = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line.slice(1).trim());
              else if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('event: ')) {
                event = line.slice(7);
                isEvent = true;
              } else if (line.startsWith('data: ')) {
                data.push(line.slice(6));
                isEvent = true;
              }
            }
            if (isEvent) events.push({ id, event, data: JSON.parse(data.join('\n')) });
          }
        }
      } catch {
        /* aborted */
      }
    })();
  }
  return {
    status: res.status,
    headers: res.headers,
    body,
    events,
    comments,
    async waitFor(pred, what, ms = 20_000) {
      return eventually(async () => events.find(pred), what, ms, 10);
    },
    close() {
      ac.abort();
    },
  };
}
