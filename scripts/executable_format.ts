// What kind of executable a file is, from its first bytes: ELF (Linux), Mach-O (macOS) or PE
// (Windows), with its CPU. `deno task release` uses it to refuse a file that is not the binary
// of the target it is staged for (a shell script, a binary of another OS or CPU), since the
// release would otherwise publish it under that target's name.

import type { Target } from "./compile.ts";

/** The executable format and CPU each release target's binaries must have. */
const EXPECTED: Record<Target, string> = {
  "x86_64-unknown-linux-gnu": "ELF x86_64",
  "aarch64-unknown-linux-gnu": "ELF aarch64",
  "x86_64-apple-darwin": "Mach-O x86_64",
  "aarch64-apple-darwin": "Mach-O arm64",
};

const ELF_MACHINES: Record<number, string> = { 0x3e: "x86_64", 0xb7: "aarch64", 0x03: "x86" };
const MACHO_CPUS: Record<number, string> = { 0x01000007: "x86_64", 0x0100000c: "arm64" };

/** "ELF x86_64", "Mach-O arm64", "PE (Windows)", … or a short description of what it is not. */
export function executableKind(head: Uint8Array): string {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const at = (i: number) => head[i] ?? -1;
  if (at(0) === 0x7f && at(1) === 0x45 && at(2) === 0x4c && at(3) === 0x46) {
    if (head.length < 20) return "a truncated ELF file";
    const little = at(5) === 1;
    const machine = view.getUint16(18, little);
    return `ELF ${ELF_MACHINES[machine] ?? `machine 0x${machine.toString(16)}`}`;
  }
  // MH_MAGIC_64 as stored little-endian (every macOS CPU Deno targets is little-endian).
  if (at(0) === 0xcf && at(1) === 0xfa && at(2) === 0xed && at(3) === 0xfe) {
    if (head.length < 8) return "a truncated Mach-O file";
    const cpu = view.getUint32(4, true);
    return `Mach-O ${MACHO_CPUS[cpu] ?? `cpu 0x${cpu.toString(16)}`}`;
  }
  if (at(0) === 0xca && at(1) === 0xfe && at(2) === 0xba && at(3) === 0xbe) {
    return "a universal (fat) Mach-O file";
  }
  if (at(0) === 0x4d && at(1) === 0x5a) return "PE (Windows)";
  if (at(0) === 0x23 && at(1) === 0x21) return "a script (#!)";
  return head.length === 0 ? "an empty file" : "not an executable";
}

/** null when the file at `path` is an executable of `target`, else the one-line reason. */
export async function targetFormatError(path: string, target: Target): Promise<string | null> {
  const file = await Deno.open(path, { read: true });
  const head = new Uint8Array(64);
  let filled = 0;
  try {
    while (filled < head.length) {
      const n = await file.read(head.subarray(filled));
      if (n === null) break;
      filled += n;
    }
  } finally {
    file.close();
  }
  const kind = executableKind(head.subarray(0, filled));
  return kind === EXPECTED[target]
    ? null
    : `${path} is ${/^(ELF|Mach-O|PE)/.test(kind) ? `an executable for ${kind}` : kind}, ` +
      `not the ${EXPECTED[target]} binary ${target} needs`;
}
