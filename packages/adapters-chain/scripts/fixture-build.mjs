// What the build scripts of vendored Solidity fixtures share (compile-circle-usdc.mjs, compile-permit2.mjs): the
// sources of a fixture directory, whether their generated module is newer, and one solc standard-JSON compile.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Every `.sol` file under `dir`, depth first. */
export const solidityFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? solidityFiles(join(dir, entry.name))
      : entry.name.endsWith('.sol')
        ? [join(dir, entry.name)]
        : [],
  )

/** Whether `outFile` is newer than every source, the script that writes it (its `import.meta.url`) and this file. */
export const upToDate = (outFile, files, scriptUrl) => {
  const scripts = [scriptUrl, import.meta.url].map((url) => statSync(fileURLToPath(url)).mtimeMs)
  const newest = Math.max(...scripts, ...files.map((f) => statSync(f).mtimeMs))
  return existsSync(outFile) && statSync(outFile).mtimeMs > newest
}

/**
 * Compiles `files` (source unit names are their paths inside `sourceDir`, so upstream's relative and remapped imports
 * resolve as they are) with `settings`; an error is printed and the build stops.
 */
export const compileFixture = (solc, sourceDir, files, settings) => {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(files.map((f) => [relative(sourceDir, f), { content: readFileSync(f, 'utf8') }])),
    settings,
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  for (const e of errors) console.error(e.formattedMessage)
  if (errors.length > 0) process.exit(1)
  return output
}
