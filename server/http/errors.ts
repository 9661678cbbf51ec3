// One JSON error body for every route of both doors, produced by one mapping from typed
// errors to statuses (design.md "Typed errors … mapped to HTTP status in one onError"):
//
//   {"error": {"code": "validation_failed", "message": "schedule.expr: …", "field": "schedule.expr"}}
//
// Unknown errors answer 500 with a generic message and a request id; the details go to the
// log only, never to the client.

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { errorText, type Logger } from "../../core/logger.ts";
import { CapacityError, GovernorConfigError } from "../../core/governor/errors.ts";
import {
  HighRiskError,
  InboxInputError,
  NoLiveHoldError,
  PublishFailedError,
  PublishHoldError,
} from "../../core/inbox/errors.ts";
import {
  MemoryCommandError,
  MemoryNotFoundError,
  MemoryPathError,
  MemoryTooLargeError,
} from "../../core/memory/errors.ts";
import { RecipeNotFoundError, TriggerEnableError } from "../../core/recipes/service.ts";
import { RecipeError } from "../../core/recipes/types.ts";
import { JobValidationError } from "../../core/scheduler/job_input.ts";
import { ScheduleError } from "../../core/scheduler/schedule.ts";
import { InFlightError } from "../../core/scheduler/scheduler.ts";
import { JobConflictError } from "../../core/scheduler/jobs.ts";
import { InboxStateError, JobLimitError, NotFoundError } from "../../core/store/errors.ts";

export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/** An error a route throws on purpose, with its status and code. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly field: string | undefined;
  constructor(status: ContentfulStatusCode, code: string, message: string, field?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/** 400 naming the offending field. */
export function badInput(field: string, detail: string): ApiError {
  return new ApiError(400, "validation_failed", `${field}: ${detail}`, field);
}

export function notFound(what: string): ApiError {
  return new ApiError(404, "not_found", what);
}

interface Mapped {
  status: ContentfulStatusCode;
  code: string;
  message: string;
  field?: string;
}

/** The status, code and public message for a thrown value; null for unexpected errors. */
export function mapError(err: unknown): Mapped | null {
  const withField = (m: Mapped, field: string | null | undefined): Mapped =>
    field ? { ...m, field } : m;
  if (err instanceof ApiError) {
    return withField({ status: err.status, code: err.code, message: err.message }, err.field);
  }
  if (err instanceof JobValidationError || err instanceof InboxInputError) {
    return { status: 400, code: "validation_failed", message: err.message, field: err.field };
  }
  if (err instanceof RecipeError) {
    return { status: 400, code: "recipe_error", message: err.message, field: err.field };
  }
  if (err instanceof RecipeNotFoundError) {
    return { status: 404, code: "not_found", message: err.message };
  }
  if (err instanceof TriggerEnableError) {
    return { status: 500, code: "trigger_enable_failed", message: err.message };
  }
  if (err instanceof ScheduleError) {
    return { status: 400, code: "validation_failed", message: err.message, field: err.field };
  }
  if (err instanceof GovernorConfigError) {
    return withField({ status: 400, code: "validation_failed", message: err.message }, err.field);
  }
  if (err instanceof MemoryPathError) {
    return { status: 400, code: "memory_path_refused", message: err.message, field: "path" };
  }
  if (err instanceof MemoryCommandError) {
    return { status: 400, code: "validation_failed", message: err.message };
  }
  if (err instanceof MemoryTooLargeError) {
    return { status: 413, code: "memory_too_large", message: err.message };
  }
  if (err instanceof MemoryNotFoundError || err instanceof NotFoundError) {
    return { status: 404, code: "not_found", message: err.message };
  }
  if (err instanceof JobLimitError) return { status: 409, code: "job_limit", message: err.message };
  if (err instanceof JobConflictError) {
    return { status: 409, code: err.code, message: err.message, field: err.field };
  }
  if (err instanceof InFlightError) {
    return { status: 409, code: "run_in_flight", message: err.message };
  }
  if (err instanceof InboxStateError) {
    return { status: 409, code: "inbox_item_closed", message: err.message };
  }
  if (err instanceof NoLiveHoldError) {
    return { status: 409, code: "no_live_hold", message: err.message };
  }
  if (err instanceof HighRiskError) return { status: 403, code: "high_risk", message: err.message };
  if (err instanceof PublishHoldError) {
    return { status: 409, code: "publish_hold", message: err.message };
  }
  if (err instanceof PublishFailedError) {
    return { status: 502, code: "publish_failed", message: err.message };
  }
  if (err instanceof CapacityError) {
    return { status: 503, code: "capacity-exceeded", message: err.message };
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return { status, code: codeForStatus(status), message: err.message || codeForStatus(status) };
  }
  return null;
}

function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 413:
      return "payload_too_large";
    default:
      return `http_${status}`;
  }
}

export function errorJson(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  field?: string,
): Response {
  const body: ErrorBody = { error: field ? { code, message, field } : { code, message } };
  c.header("Cache-Control", "no-store");
  return c.json(body, status);
}

let nextRequestId = 1;

/** The app's one onError: typed errors to their status, anything else to a logged 500. */
export function errorHandler(logger: Logger): (err: Error, c: Context) => Response {
  return (err, c) => {
    const mapped = mapError(err);
    if (mapped) {
      if (err instanceof CapacityError) c.header("Retry-After", "30");
      return errorJson(c, mapped.status, mapped.code, mapped.message, mapped.field);
    }
    const id = `req-${Date.now().toString(36)}-${(nextRequestId++).toString(36)}`;
    logger.log("error", "request failed", {
      request_id: id,
      method: c.req.method,
      path: c.req.path,
      error: errorText(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return errorJson(c, 500, "internal_error", `internal error (${id}); see the outpost log`);
  };
}
