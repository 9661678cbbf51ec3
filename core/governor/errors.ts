// Typed governor errors.

export class GovernorConfigError extends Error {
  override readonly name = "GovernorConfigError";
  /** The file or environment variable at fault. */
  readonly source: string;
  /** The lever at fault, when one is ("max_concurrent.api"). */
  readonly field: string | null;
  constructor(source: string, field: string | null, detail: string) {
    super(`${source}${field ? ` ${field}` : ""}: ${detail}`);
    this.source = source;
    this.field = field;
  }
}

/** A background submission past queue_depth_max; the machine door answers 503. */
export class CapacityError extends Error {
  override readonly name = "CapacityError";
  readonly code = "capacity-exceeded";
  readonly queued: number;
  readonly limit: number;
  constructor(queued: number, limit: number) {
    super(
      `capacity exceeded: ${queued} runs are already queued (queue_depth_max ${limit}); ` +
        `retry later or raise queue_depth_max`,
    );
    this.queued = queued;
    this.limit = limit;
  }
}
