import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/** Child processes started by a script, stopped together (whole process groups) when any of them dies. */
export class Children {
  private readonly running = new Set<ChildProcess>();
  private stopping = false;

  start(label: string, command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    const child = spawn(command, args, { ...options, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    this.running.add(child);
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
