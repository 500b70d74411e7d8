import { existsSync } from "node:fs";
import { Profile } from "../apps/profile.js";
import { botpsyHome, profileDatabasePath, profileName } from "../config.js";

/**
 * Open the profile in use; on first use, when it is created, say so: which
 * profile, where it lives, and that it is filled with a made-up person's
 * demo data. The note goes to stderr, so `--json` output stays one document.
 */
export function openProfileAnnounced(options: { write?: (text: string) => void } = {}): Profile {
  const name = profileName();
  const path = profileDatabasePath(name, botpsyHome());
  const isNew = !existsSync(path);
  const profile = Profile.open();
  if (isNew) {
    const write = options.write ?? ((text: string) => process.stderr.write(text));
    write(
      `botpsy: created the profile "${name}" at ${path}, filled with demo data (a made-up person's calendar, mail, messages, tasks…).\n` +
        `        Use another with BOTPSY_PROFILE=<name> or \`botpsy profile new <name> --seed empty\`; BOTPSY_HOME moves everything (now ${botpsyHome()}).\n`,
    );
  }
  return profile;
}
