// Newline-delimited JSON from a byte stream: chunks are split into lines
// wherever they end, blank lines (dlpd's keep-alives while a follow has nothing
// to send) are skipped, and a line that is not JSON is reported, not thrown.
// Pure: tested in Node.

export class NdjsonReader<T = unknown> {
  private decoder = new TextDecoder();
  private partial = "";

  constructor(
    private onValue: (value: T) => void,
    private onError: (line: string) => void = () => {},
  ) {}

  push(chunk: Uint8Array): void {
    this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  // The stream ended: a last line without "\n" counts too.
  end(): void {
    this.feed(this.decoder.decode());
    const rest = this.partial;
    this.partial = "";
    this.line(rest);
  }

  private feed(text: string): void {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const l of lines) this.line(l);
  }

  private line(l: string): void {
    if (l.trim() === "") return;
    let v: T;
    try {
      v = JSON.parse(l) as T;
    } catch {
      this.onError(l);
      return;
    }
    this.onValue(v);
  }
}

// Reads a fetch body to its end (or until `signal` aborts), value by value.
export async function readNdjson<T>(
  body: ReadableStream<Uint8Array>,
  onValue: (value: T) => void,
  onError?: (line: string) => void,
): Promise<void> {
  const reader = new NdjsonReader<T>(onValue, onError);
  const r = body.getReader();
  for (;;) {
    const { done, value } = await r.read();
    if (done) break;
    reader.push(value);
  }
  reader.end();
}
