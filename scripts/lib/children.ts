import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/** Restarts of a supervised child within a minute beyond which it counts as broken, and everything stops. */
const RESTARTS_PER_MINUTE = 5;

/**
 * Child processes started by a script, stopped together (whole process groups) when any of them dies;
 * except a child started with `restart`, which is started again when it dies alone, as the platform
 * restarts a Container (unless it keeps dying: then everything stops).
 */
export class Children {
  private readonly running = new Set<ChildProcess>();
  private stopping = false;

  start(label: string, command: string, args: string[], options: SpawnOptions & { restart?: boolean } = {}, restarts: number[] = []): ChildProcess {
    const { restart, ...spawnOptions } = options;
    const child = spawn(command, args, { ...spawnOptions, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    this.running.add(child);
    if (restart) console.log(`[${label}] started (pid ${child.pid})`);
    const prefix = (chunk: Buffer) =>
      chunk
        .toString()
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => `[${label}] ${line}\n`)
        .join("");
    child.stdout?.on("data", (chunk: Buffer) => process.stdout.write(prefix(chunk)));
    child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(prefix(chunk)));
    child.on("exit", (code, signal) => {
      this.running.delete(child);
      const recent = [...restarts.filter((at) => Date.now() - at < 60_000), Date.now()];
      if (!this.stopping && restart && recent.length <= RESTARTS_PER_MINUTE) {
        console.error(`[${label}] exited (${signal ?? code}); restarting it.`);
        this.start(label, command, args, options, recent);
        return;
      }
      if (!this.stopping) {
        console.error(`[${label}] exited (${signal ?? code}); stopping everything.`);
        this.stopAll(code === 0 ? 1 : (code ?? 1));
      }
    });
    return child;
  }

  isAlive(child: ChildProcess): boolean {
    return this.running.has(child);
  }

  stopAll(exitCode: number): void {
    this.stopping = true;
    for (const child of this.running) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    setTimeout(() => {
      for (const child of this.running) {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      process.exit(exitCode);
    }, 1500).unref();
    if (this.running.size === 0) process.exit(exitCode);
  }
}

/** Runs a command to completion, output prefixed; rejects on a non-zero exit. */
export function run(label: string, command: string, args: string[], options: SpawnOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${label} failed (exit ${code}):\n${output}`));
    });
  });
}
