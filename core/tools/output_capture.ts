// Collects a command's output within a fixed memory budget: the head, a rolling tail and a
// count of everything in between. A chatty command's last lines (where a failure summary
// usually is) survive, and the cut note says how much was really left out.

export class OutputCapture {
  readonly #headMax: number;
  readonly #tailKeep: number;
  #head = "";
  #tail: string[] = [];
  #tailLength = 0;
  #total = 0;
  readonly #decoders = new Map<string, TextDecoder>();

  /** `max` is the longest text returned; a longer output keeps 70% head and 25% tail. */
  constructor(readonly max: number) {
    this.#headMax = Math.floor(max * 0.7);
    this.#tailKeep = Math.floor(max * 0.25);
  }

  /** Adds bytes from one stream; each stream decodes on its own so split UTF-8 survives. */
  push(stream: string, bytes: Uint8Array): void {
    let decoder = this.#decoders.get(stream);
    if (!decoder) this.#decoders.set(stream, decoder = new TextDecoder());
    this.add(decoder.decode(bytes, { stream: true }));
  }

  /** Adds already decoded text. */
  add(text: string): void {
    if (text === "") return;
    this.#total += text.length;
    if (this.#head.length < this.#headMax) {
      const take = text.slice(0, this.#headMax - this.#head.length);
      this.#head += take;
      text = text.slice(take.length);
      if (text === "") return;
    }
    this.#tail.push(text);
    this.#tailLength += text.length;
    // Keep at least `max` characters of tail, so an output up to `max` is returned whole.
    while (this.#tailLength - this.#tail[0]!.length >= this.max) {
      this.#tailLength -= this.#tail.shift()!.length;
    }
  }

  /** Characters seen in total. */
  get total(): number {
    return this.#total;
  }

  /** The captured text, with a note where the middle was cut. Flushes the decoders. */
  text(): string {
    for (const decoder of this.#decoders.values()) this.add(decoder.decode());
    const tail = this.#tail.join("");
    if (this.#total <= this.max) return this.#head + tail;
    const kept = tail.slice(tail.length - this.#tailKeep);
    const cut = this.#total - this.#head.length - kept.length;
    return `${this.#head}\n… [${cut} characters cut] …\n${kept}`;
  }
}
