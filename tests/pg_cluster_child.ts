// A test process that makes the throwaway cluster of tests/pg_cluster.ts, prints its folder and
// its postmaster's pid as one JSON line, and then waits to be killed (tests/pg_cluster_test.ts).

import { pgCluster } from "./pg_cluster.ts";

const cluster = pgCluster();
const pid = Number(Deno.readTextFileSync(`${cluster.dir}/data/postmaster.pid`).split("\n")[0]);
console.log(JSON.stringify({ dir: cluster.dir, pid }));
await new Promise(() => setInterval(() => {}, 60_000));
