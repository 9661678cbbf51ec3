// The programs' permission flags, run flags and entry points, for the scripts and tests: the
// definitions live in core/program_flags.ts, since the outpost itself uses them (product code
// never imports from scripts/).
export * from "../core/program_flags.ts";
