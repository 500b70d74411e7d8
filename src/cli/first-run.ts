import { existsSync } from "node:fs";
import type { WebFetcher } from "../apps/app.js";
import { Profile } from "../apps/profile.js";
import { botpsyHome, configuredProviders, profileDatabasePath, profileName, readConfig } from "../config.js";

/**
 * Open the profile in use; on first use, when it is created, say so: which
 * profile, where it lives, and that it is filled with a made-up person's
 * demo data. The note goes to stderr, so `--json` output stays one document.
 * The web apps get config.json's providers, and `webFetcher` when their
 * requests go out through a peer (`--web-via`).
 */
export function openProfileAnnounced(options: { name?: string; write?: (text: string) => void; webFetcher?: WebFetcher } = {}): Profile {
  const name = options.name ?? profileName();
  const path = profileDatabasePath(name, botpsyHome());
  const isNew = !existsSync(path);
  const providers = configuredProviders(readConfig());
  const profile = Profile.open({ name, providers, ...(options.webFetcher !== undefined ? { webFetcher: options.webFetcher } : {}) });
  if (isNew) {
    const write = options.write ?? ((text: string) => process.stderr.write(text));
    write(
      `botpsy: created the profile "${name}" at ${path}, filled with demo data (a made-up person's calendar, mail, messages, tasks…).\n` +
        `        Use another with BOTPSY_PROFILE=<name> or \`botpsy profile new <name> --seed empty\`; BOTPSY_HOME moves everything (now ${botpsyHome()}).\n`,
    );
  }
  return profile;
}
