import { useEffect, useState } from "preact/hooks";
import { getJson, type AppView } from "./api.js";

/** The apps a day is read from, in the order the page shows them. */
export const TODAY_PANELS = [
  { app: "calendar", heading: "Calendar" },
  { app: "alarms", heading: "Alarms" },
  { app: "timers", heading: "Timers" },
  { app: "email", heading: "Inbox" },
  { app: "messages", heading: "Messages" },
  { app: "finance", heading: "Balances" },
  { app: "car", heading: "Car" },
] as const;

function Panel({ app, heading, refresh }: { app: string; heading: string; refresh: number }) {
  const [view, setView] = useState<AppView | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    getJson<AppView>(`/v1/apps/${app}`).then(
      (loaded) => {
        setView(loaded);
        setProblem(undefined);
      },
      (error: unknown) => setProblem(error instanceof Error ? error.message : String(error)),
    );
  }, [app, refresh]);
  const headingId = `panel-${app}`;
  return (
    <section class="panel" aria-labelledby={headingId} data-app={app}>
      <h2 id={headingId}>{heading}</h2>
      {problem ? <p class="problem">{problem}</p> : view ? <pre class="app-view">{view.text}</pre> : <p class="loading">Loading…</p>}
    </section>
  );
}

/** Today at a glance: one panel per app, read through the agent API's app views. */
export function Today({ refresh }: { refresh: number }) {
  return (
    <div class="panels">
      {TODAY_PANELS.map((panel) => (
        <Panel key={panel.app} app={panel.app} heading={panel.heading} refresh={refresh} />
      ))}
    </div>
  );
}
