import { useEffect, useRef, useState } from "preact/hooks";
import { Activity } from "./activity.js";
import { ApiCallError, getJson, saveToken, savedToken, type AppNotification } from "./api.js";
import { Chat } from "./chat.js";
import { Reports } from "./reports.js";
import { Today } from "./today.js";

const TABS = [
  { id: "chat", label: "Chat" },
  { id: "today", label: "Today" },
  { id: "activity", label: "Activity" },
  { id: "reports", label: "Reports" },
] as const;
type TabId = (typeof TABS)[number]["id"];

/** Alarms and reminders that come due, asked of the server every 15 s. */
function useNotifications(): [AppNotification[], (notification: AppNotification) => void] {
  const [shown, setShown] = useState<AppNotification[]>([]);
  const since = useRef<string | undefined>(undefined);
  useEffect(() => {
    const look = (): void => {
      const query = since.current ? `?since=${encodeURIComponent(since.current)}` : "";
      getJson<{ now: string; notifications: AppNotification[] }>(`/v1/notifications${query}`).then(
        (answer) => {
          since.current = answer.now;
          if (answer.notifications.length > 0) setShown((previous) => [...previous, ...answer.notifications]);
        },
        () => undefined,
      );
    };
    look();
    const interval = setInterval(look, 15_000);
    return () => clearInterval(interval);
  }, []);
  return [shown, (notification) => setShown((previous) => previous.filter((item) => item !== notification))];
}

function TokenForm({ onSaved }: { onSaved: () => void }) {
  const [token, setToken] = useState("");
  return (
    <form
      class="panel token"
      onSubmit={(event) => {
        event.preventDefault();
        saveToken(token.trim());
        onSaved();
      }}
    >
      <h2>Access token</h2>
      <p>This server asks for its access token (botpsy serve printed it when it made it).</p>
      <label for="token">Token</label>
      <input id="token" type="password" autoComplete="off" value={token} onInput={(event) => setToken((event.target as HTMLInputElement).value)} />
      <button type="submit" class="primary" disabled={token.trim() === ""}>
        Save
      </button>
    </form>
  );
}

export function App() {
  const [tab, setTab] = useState<TabId>(() => {
    const wanted = location.hash.slice(1);
    return TABS.some((item) => item.id === wanted) ? (wanted as TabId) : "chat";
  });
  const [refresh, setRefresh] = useState(0);
  const [needsToken, setNeedsToken] = useState(false);
  const [notifications, dismiss] = useNotifications();
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});

  useEffect(() => {
    getJson("/v1/apps").catch((error: unknown) => {
      if (error instanceof ApiCallError && error.status === 401) setNeedsToken(true);
    });
  }, [savedToken()]);

  const choose = (id: TabId): void => {
    setTab(id);
    history.replaceState(null, "", `#${id}`);
  };
  // Arrow keys move between tabs, as in any tab list.
  const onTabKey = (event: KeyboardEvent, index: number): void => {
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = TABS[(index + step + TABS.length) % TABS.length]!;
    choose(next.id);
    tabRefs.current[next.id]?.focus();
  };

  return (
    <div class="shell">
      <header class="top">
        <h1>botpsy</h1>
        <nav class="tabs" role="tablist" aria-label="Screens">
          {TABS.map((item, index) => (
            <button
              key={item.id}
              id={`tab-${item.id}`}
              ref={(element) => {
                tabRefs.current[item.id] = element;
              }}
              type="button"
              role="tab"
              aria-selected={tab === item.id}
              aria-controls={`screen-${item.id}`}
              tabIndex={tab === item.id ? 0 : -1}
              onClick={() => choose(item.id)}
              onKeyDown={(event) => onTabKey(event, index)}
            >
              {item.label}
            </button>
          ))}
        </nav>
      </header>
      {notifications.length > 0 ? (
        <ul class="notifications" aria-label="Notifications">
          {notifications.map((notification, index) => (
            <li key={`${notification.at}-${index}`} role="alert" class={`notification kind-${notification.kind}`}>
              <span>
                <strong>{notification.app}</strong> {notification.message}
              </span>
              <button type="button" aria-label={`Dismiss: ${notification.message}`} onClick={() => dismiss(notification)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {needsToken ? (
        <main class="screen">
          <TokenForm
            onSaved={() => {
              setNeedsToken(false);
              setRefresh((value) => value + 1);
            }}
          />
        </main>
      ) : (
        <main class="screens">
          {/* The chat stays mounted on every tab, so a run in progress keeps streaming into it. */}
          <div id="screen-chat" role="tabpanel" aria-labelledby="tab-chat" class="screen screen-chat" hidden={tab !== "chat"}>
            <Chat onActed={() => setRefresh((value) => value + 1)} />
          </div>
          {tab !== "chat" ? (
            <div id={`screen-${tab}`} role="tabpanel" aria-labelledby={`tab-${tab}`} class={`screen screen-${tab}`}>
              {tab === "today" ? <Today refresh={refresh} /> : tab === "activity" ? <Activity refresh={refresh} onActed={() => setRefresh((value) => value + 1)} /> : <Reports />}
            </div>
          ) : null}
        </main>
      )}
    </div>
  );
}
