// Builds the pages into built/ (or the directory given as the argument):
// index.html (the spectator page) and console.html (the arbiter's console)
// as they are, spectator.js and console.js (the TypeScript bundled and
// minified with esbuild) and pages.css (chessground's style sheets with the
// pages' own). built/ is committed and embedded in the server
// (src/server/pages.rs); scripts/check-web builds again into a temporary
// directory and fails when the two differ. Needs src/gen (buf generate).
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "built"));

mkdirSync(out, { recursive: true });
for (const name of readdirSync(out)) rmSync(join(out, name), { recursive: true, force: true });

await build({
  absWorkingDir: here,
  entryPoints: ["src/spectator.ts", "src/console.ts", "src/pages.css"],
  outdir: out,
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "eof",
  charset: "utf8",
  logLevel: "warning",
});
for (const page of ["index.html", "console.html"]) copyFileSync(join(here, page), join(out, page));
