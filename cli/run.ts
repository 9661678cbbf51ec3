export function main(_args: string[]): Promise<number> {
  console.error("agent: not implemented yet");
  return Promise.resolve(1);
}
