// The last N characters of a stream of chunks: a terminal command's output is
// recorded while it runs, and a training run prints without end, so only the
// tail (where the failure is) is kept. Pure.

export class OutputTail {
  private chunks: string[] = [];
  private length = 0;
  private dropped = false;

  constructor(private readonly maxChars: number) {}

  append(chunk: string): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
    while (this.length > this.maxChars && this.chunks.length > 0) {
      const first = this.chunks[0] ?? "";
      const excess = this.length - this.maxChars;
      if (first.length <= excess) {
        this.chunks.shift();
        this.length -= first.length;
      } else {
        this.chunks[0] = first.slice(excess);
        this.length -= excess;
      }
      this.dropped = true;
    }
  }

  /** Whether the beginning of the output was dropped. */
  get truncated(): boolean {
    return this.dropped;
  }

  /** The kept text; when truncated, from the first whole line on. */
  text(): string {
    const all = this.chunks.join("");
    this.chunks = all === "" ? [] : [all];
    if (!this.dropped) return all;
    const newline = all.indexOf("\n");
    return newline < 0 ? all : all.slice(newline + 1);
  }
}
