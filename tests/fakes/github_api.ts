// A loopback stand-in for the GitHub REST API, for the github_pr_comment surface: it records
// every request and answers POST /repos/<owner>/<name>/issues/<n>/comments with 201 (or a
// scripted status). Point AGENT_OUTPOST_GITHUB_API_URL at `url`.

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export class FakeGithubApi implements AsyncDisposable {
  readonly requests: RecordedRequest[] = [];
  /** Status of the next comment answers (default 201). */
  status = 201;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #waiters: ((r: RecordedRequest) => void)[] = [];

  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (req) => {
        const url = new URL(req.url);
        const recorded: RecordedRequest = {
          method: req.method,
          path: url.pathname,
          headers: Object.fromEntries(req.headers),
          body: await req.text(),
        };
        this.requests.push(recorded);
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const w of waiters) w(recorded);
        const m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(url.pathname);
        if (req.method !== "POST" || !m) {
          return Response.json({ message: "Not Found" }, { status: 404 });
        }
        if (this.status !== 201) {
          return Response.json({ message: "scripted failure" }, { status: this.status });
        }
        return Response.json({
          id: this.requests.length,
          html_url: `https://github.invalid/c/${m[1]}`,
        }, {
          status: 201,
        });
      },
    );
  }

  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** Resolves with the next request received. */
  nextRequest(): Promise<RecordedRequest> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#server.shutdown();
  }
}
