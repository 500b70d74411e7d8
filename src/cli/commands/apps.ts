import type { Command } from "commander";
import { APP_GROUP_TITLES } from "../../apps/app.js";
import { Profile } from "../../apps/profile.js";
import { toolSpec } from "../../tools/tool.js";

export function registerAppsCommand(program: Command): void {
  const apps = program
    .command("apps")
    .description("List the built-in apps and their tools, or show an app's current state")
    .option("--json", "print JSON for machines")
    .action((options: { json?: boolean }) => {
      const profile = Profile.open();
      try {
        if (options.json) {
          const listing = profile.apps.map((app) => ({
            name: app.name,
            group: app.group,
            title: app.title,
            description: app.description,
            tools: app.tools.map((tool) => ({ name: tool.name, risk: tool.risk, description: tool.description, parameters: toolSpec(tool).parameters })),
          }));
          process.stdout.write(`${JSON.stringify(listing, null, 2)}\n`);
          return;
        }
        for (const [group, title] of Object.entries(APP_GROUP_TITLES)) {
          const members = profile.apps.filter((app) => app.group === group);
          if (members.length === 0) continue;
          process.stdout.write(`\n${title}\n`);
          for (const app of members) {
            process.stdout.write(`  ${app.name.padEnd(12)} ${app.description}\n`);
            for (const tool of app.tools) process.stdout.write(`      ${tool.name.padEnd(26)} [${tool.risk}]\n`);
          }
        }
      } finally {
        profile.close();
      }
    });

  apps
    .command("show <app>")
    .description("Print an app's current state as a person would read it (the week's calendar, the inbox, alarms…)")
    .option("--json", "print JSON for machines")
    .action((name: string, options: { json?: boolean }) => {
      // `--json` after the app name is parsed by the parent command too.
      const json = options.json === true || apps.opts<{ json?: boolean }>().json === true;
      const profile = Profile.open();
      try {
        const app = profile.app(name);
        const view = profile.store.read((tx) => app.view(tx, profile.environment));
        process.stdout.write(json ? `${JSON.stringify(view.data, null, 2)}\n` : `${view.text.trimEnd()}\n`);
      } finally {
        profile.close();
      }
    });
}
