// Records of trigger-bound recipes (migration 003): the trigger rows made by enabling a
// trigger recipe, and the delivery ids already accepted and (migration 007) the events
// already fired on (replay protection).

export type TriggerSource = "github";

/** Job settings a trigger's one-shots are made with (validated at enable time). */
export interface TriggerJobSettings {
  workdir: string;
  mode: "auto" | "strict";
  timeout_s: number;
  max_retries: number;
  token_budget: number | null;
}

export interface RecipeTrigger {
  id: number;
  recipe_id: string;
  recipe_version: number;
  source: TriggerSource;
  /** owner/name: deliveries for any other repository are refused. */
  repo: string;
  name: string;
  /** The prompt rendered at enable time; frozen for the trigger's lifetime. */
  prompt: string;
  job: TriggerJobSettings;
  /** The operator's config as validated (no secrets: recipe fields are plain values). */
  config: Record<string, unknown>;
  /** Input to the webhook secret's derivation; the secret itself is never stored. */
  salt: string;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export type NewTrigger = Omit<
  RecipeTrigger,
  "id" | "enabled" | "disabled_reason" | "created_at" | "updated_at"
>;

export interface TriggerStore {
  create(trigger: NewTrigger): RecipeTrigger;
  get(id: number): RecipeTrigger | null;
  /** Newest first. */
  list(): RecipeTrigger[];
  /** Enables, or disables with a reason. Throws NotFoundError for an unknown id. */
  setEnabled(id: number, enabled: boolean, reason?: string): RecipeTrigger;
  /**
   * Records a delivery id for a trigger: true when it is new, false when it was seen
   * before (a replay). Ids older than `forgetBefore` are forgotten first.
   */
  recordDelivery(triggerId: number, deliveryId: string, forgetBefore: string): boolean;
  /** Notes the one-shot job a delivery made. */
  setDeliveryJob(triggerId: number, deliveryId: string, jobId: number): void;
  /**
   * Records that a trigger fired on event `eventKey` (its identity from the signed body):
   * null when the event is new (now recorded), or its first delivery when it was seen before
   * (a replay). Events received before `forgetBefore` are forgotten first.
   */
  recordEvent(
    triggerId: number,
    eventKey: string,
    deliveryId: string,
    forgetBefore: string,
  ): SeenEvent | null;
  /** Notes the one-shot job an event made. */
  setEventJob(triggerId: number, eventKey: string, jobId: number): void;
}

/** The first delivery of an event already fired on. */
export interface SeenEvent {
  delivery_id: string;
  received_at: string;
  job_id: number | null;
}
