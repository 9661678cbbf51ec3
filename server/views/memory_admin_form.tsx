// The memory body panel's controls: change the open file's category or workspace, or delete
// it (server/routes/memory_admin.ts; driven by static/memory_admin.js). The category list
// says what each one means for the file's lifetime, since that is why an operator changes it.

import type { FC } from "hono/jsx";
import { CATEGORIES } from "../../core/memory/mod.ts";

const MEANING: Record<string, string> = {
  "project-fact": "project-fact (kept; stale after 6 months)",
  preference: "preference (kept)",
  episodic: "episodic (deleted after 6 weeks untouched)",
  session: "session (deleted after a day)",
};

export const MemoryAdminForm: FC = () => (
  <form class="memory-admin" id="memory-admin" data-path="">
    <label for="memory-category">
      Category
      <select id="memory-category" name="category">
        {CATEGORIES.map((c) => <option key={c} value={c}>{MEANING[c] ?? c}</option>)}
      </select>
    </label>
    <label for="memory-workspace">
      Workspace
      <input
        id="memory-workspace"
        name="workspace"
        type="text"
        placeholder="empty: global"
        autocomplete="off"
      />
    </label>
    <button type="submit" class="btn btn-primary">Save</button>
    <button type="button" class="btn btn-quiet btn-danger" id="memory-delete">Delete file</button>
    <p class="form-error" id="memory-admin-error" role="alert" hidden></p>
  </form>
);
