// --profile: the service runs under --cpu-prof; once stopped, its profile is cut to each measured phase's window and
// the top self-time functions and packages of each are printed (bench/lib/cpuprofile.mjs).
import { mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { say } from '../basics.mjs'
import { summariseProfile } from '../cpuprofile.mjs'

/** Where this benchmark's profile goes (created only with --profile). */
export const profileDirectory = (config, started) => {
  const profileDir = path.join(config.out, 'profiles', started.toISOString().replace(/[:.]/g, '-'))
  if (config.profile) mkdirSync(profileDir, { recursive: true })
  return profileDir
}

const printRanking = (entries) => {
  for (const f of entries) say(`  ${String(f.selfMs).padStart(8)} ms ${String(f.share).padStart(5)} %  ${f.name}`)
}

/** Stops the service so it writes its profile; one summary per window, or undefined when none was written. */
export const summariseServiceProfile = async (service, profileDir, windows) => {
  say('\nstopping the service to write its CPU profile…')
  await service.stop()
  const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))
  if (files.length === 0) {
    say('no profile was written')
    return undefined
  }
  const profile = windows.map((window) => summariseProfile(path.join(profileDir, files[0]), { top: 30, window }))
  for (const p of profile) {
    say(`\nservice CPU profile, ${p.window}: main thread busy ${p.busyMs} of ${p.totalMs} ms; top self time:`)
    printRanking(p.functions)
    say('  by package:')
    printRanking(p.packages.slice(0, 15))
  }
  say(`(profile: ${path.join(profileDir, files[0])})`)
  return profile
}
