#!/usr/bin/env node
// The command's entry. proof-verify is TypeScript, made for and tested on Node.js 24 (its `engines`); an older
// Node.js stops on the .ts file with ERR_UNKNOWN_FILE_EXTENSION, which tells a verifier nothing. Verifiers run
// this years after sealing on whatever Node.js they have, so this file is plain JavaScript that any Node.js
// since 12.17 runs as a module (no `?.`, `??`, top-level await or `node:` imports) and says what is needed.
import { existsSync } from "fs";
import { fileURLToPath } from "url";

const requiredMajor = 24;

/** An argument as a shell (sh or Windows') gets it back: in double quotes when it holds more than a path or a pin. */
function shellWord(argument) {
  if (/^[\w./\\:=@%+,-]+$/.test(argument)) return argument;
  // sh expands $, ` and \ inside double quotes and stops at a ": such an argument is single-quoted (sh's way).
  return /[$`"\\!]/.test(argument) ? `'${argument.replace(/'/g, "'\\''")}'` : `"${argument}"`;
}

if (Number(process.versions.node.split(".")[0]) < requiredMajor) {
  const lines = [
    `proof-verify needs Node.js ${requiredMajor} or later (this is v${process.versions.node}): it is written in TypeScript and made for Node.js ${requiredMajor}.`,
    `Install Node.js ${requiredMajor} or later from https://nodejs.org (or with a version manager: nvm install ${requiredMajor}, fnm install ${requiredMajor}, volta install node@${requiredMajor}).`,
  ];
  // A clone where `npm install` ran holds Node.js 24 already (the repository's `node` devDependency).
  const repository = fileURLToPath(new URL("../..", import.meta.url)).replace(/[\\/]$/, "");
  if (existsSync(`${repository}/node_modules/node/package.json`)) {
    const entry = fileURLToPath(import.meta.url);
    const command = ["npm", "exec", "--prefix", repository, "--", "node", entry].concat(process.argv.slice(2)).map(shellWord);
    lines.push(`Or run it with the Node.js ${requiredMajor} that npm install put in this repository:`, `  ${command.join(" ")}`);
  }
  console.error(lines.join("\n"));
  process.exit(2);
}

import("./proof-verify.ts");
