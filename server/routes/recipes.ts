// Recipe routes of the human door (spec 4.5): the catalog with enabled counts and load
// errors, a preview of the rendered prompt and next fires for the enable form, enabling a
// recipe (a stamped job, or a trigger row with its one-time secret), the recipe-made jobs
// and triggers with their stale marks, and the operator's switch for a trigger.

import type { Hono } from "hono";
import type { AppDeps } from "../deps.ts";
import { JobLimitError } from "../../core/store/errors.ts";
import { ApiError, badInput } from "../http/errors.ts";
import { humanActor, ID, pathId, readJson, readJsonObject } from "../http/request.ts";

/** Recipe ids as in schemas/recipe.schema.json; anything else does not match a route. */
const RECIPE_ID = "[a-z][a-z0-9-]{0,63}";

export function registerRecipeRoutes(app: Hono, deps: AppDeps): void {
  const { recipes, live } = deps;
  const actor = (c: Parameters<typeof humanActor>[0]) => humanActor(c, deps.trustedUserHeader);

  app.get("/api/recipes", async (c) => c.json(await recipes.listing()));

  app.get("/api/recipes/enabled", async (c) => c.json(await recipes.enabled()));

  app.post(`/api/recipes/:id{${RECIPE_ID}}/preview`, async (c) => {
    return c.json(await recipes.preview(c.req.param("id"), readJson(c, {})));
  });

  app.post(`/api/recipes/:id{${RECIPE_ID}}/enable`, async (c) => {
    const result = await recipes.enable(c.req.param("id"), readJson(c, {}), actor(c)).catch(
      (err) => {
        // Spec 7 lists a cap hit on this route as 400 (POST /api/jobs keeps its 409).
        if (err instanceof JobLimitError) throw new ApiError(400, "job_limit", err.message);
        throw err;
      },
    );
    if (result.kind === "job") {
      live.publish({ type: "job", job_id: result.job.id, change: "created" });
      return c.json({ job: result.job }, 201);
    }
    // The secret is in this answer only: it is derived on each delivery, never stored.
    c.header("Cache-Control", "no-store");
    return c.json({ trigger: result.trigger, secret: result.secret, setup: result.setup }, 201);
  });

  app.put(`/api/recipes/triggers/:id{${ID}}`, (c) => {
    const body = readJsonObject(c);
    for (const key of Object.keys(body)) {
      if (key !== "enabled") {
        throw badInput(key.slice(0, 60), 'unknown field; send {"enabled": true|false}');
      }
    }
    if (typeof body.enabled !== "boolean") throw badInput("enabled", "expected true or false");
    const trigger = recipes.setTriggerEnabled(pathId(c, "id"), body.enabled, actor(c));
    return c.json({ trigger });
  });
}
