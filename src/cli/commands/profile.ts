import type { Command } from "commander";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Profile } from "../../apps/profile.js";
import { botpsyHome, profileDatabasePath, profileName } from "../../config.js";
import { InvalidInputError } from "../../errors.js";

export function registerProfileCommand(program: Command): void {
  const profile = program.command("profile").description("Create, list and remove profiles (one SQLite file each under BOTPSY_HOME/profiles)");

  profile
    .command("new [name]")
    .description("Create a profile, empty or seeded with the deterministic demo persona")
    .option("--seed <kind>", "demo | empty", "demo")
    .option("--clock <iso>", "fix the profile's clock (for demos and evaluation that must repeat)")
    .option("--time-zone <zone>", "IANA time zone (default: the system's)")
    .option("--force", "replace an existing profile of that name")
    .action((name: string | undefined, options: { seed: string; clock?: string; timeZone?: string; force?: boolean }) => {
      const target = name ?? profileName();
      if (options.seed !== "demo" && options.seed !== "empty") {
        throw new InvalidInputError(`--seed must be "demo" or "empty", not "${options.seed}".`);
      }
      const path = profileDatabasePath(target);
      if (existsSync(path)) {
        if (!options.force) throw new InvalidInputError(`Profile "${target}" already exists (${path}). Use --force to replace it.`, { code: "profile_exists" });
        removeProfileFiles(target);
      }
      const opened = Profile.open({ name: target, seed: options.seed, clock: options.clock, timeZone: options.timeZone });
      const apps = opened.apps.length;
      opened.close();
      process.stdout.write(`Created profile "${target}" (${options.seed}, ${apps} apps) at ${path}\n`);
    });

  profile
    .command("list")
    .description("List the profiles")
    .action(() => {
      const directory = join(botpsyHome(), "profiles");
      const names = existsSync(directory) ? readdirSync(directory).filter((file) => file.endsWith(".db")).map((file) => file.slice(0, -3)) : [];
      if (names.length === 0) process.stdout.write("No profiles yet: `botpsy profile new` creates one (the first command that needs one does too).\n");
      for (const name of names) process.stdout.write(`${name === profileName() ? "*" : " "} ${name}\n`);
    });

  profile
    .command("rm <name>")
    .description("Delete a profile and its files")
    .action((name: string) => {
      if (!existsSync(profileDatabasePath(name))) throw new InvalidInputError(`There is no profile "${name}".`, { code: "unknown_profile" });
      removeProfileFiles(name);
      process.stdout.write(`Removed profile "${name}"\n`);
    });
}

function removeProfileFiles(name: string): void {
  const path = profileDatabasePath(name);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  rmSync(join(botpsyHome(), "profiles", name), { recursive: true, force: true });
}
