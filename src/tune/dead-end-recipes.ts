import type { ObservedResult, PlannedTurn, Recipe } from "./recipes.js";
import type { ScriptedReply } from "../testing/scripted-model.js";
import { answer, call, finalAnswer, lastResult } from "./replies.js";
import { CITIES, MESSAGE_TEXTS } from "./vocabulary.js";

/**
 * Calls that fail with an error the model cannot fix (a contact that does not
 * exist, a song that is not in the library, a file or an order that is not
 * there), where the right move is to stop and tell the person what is wrong.
 * The agent holds the model to a call for up to two turns after a failure
 * (the tool the error names, else the failed tool again), so each trajectory
 * makes the look-up the error suggests, or the same tool with arguments that
 * can work, and then answers in plain words. Never the same failing call
 * twice. The errors are the apps' own, read from the run.
 */

/** People who are not among the demo profile's contacts. */
const STRANGERS = ["Zoltan", "Ingrid", "Kenji", "Bartek", "Nadia", "Viktor", "Rosalind", "Hamid"];
/** Artists who are not in the demo music library. */
const MISSING_ARTISTS: ReadonlyArray<readonly [string, string]> = [
  ["Taylor Swift", "pop"],
  ["Dua Lipa", "pop"],
  ["Adele", "soul"],
  ["Miles Davis", "jazz"],
  ["The Beatles", "rock"],
  ["Nina Simone", "jazz"],
  ["Daft Punk", "electronic"],
];
const ALARM_LABELS = ["swimming", "pills", "school run", "flight", "dentist", "yoga"];
const MISSING_FILES = ["notes/taxes-2026.txt", "notes/gift-ideas.md", "documents/passport-scan.txt", "documents/lease.md", "work/q3-plan.md", "work/roadmap.txt"];

/** The last day the weather app forecasts, as its date_too_far error says. */
function lastForecastDay(failed: ObservedResult | undefined): string | undefined {
  return /only reach (\d{4}-\d{2}-\d{2})/.exec(failed?.error?.message ?? "")?.[1];
}

/** The turn after a failed call: `onError` when it failed as expected, else the usual final answer. */
function afterFailure(code: string, onError: (failed: ObservedResult, observed: readonly ObservedResult[]) => ScriptedReply, done: string): PlannedTurn {
  return (observed) => {
    const last = lastResult(observed);
    if (last !== undefined && !last.ok && last.error?.code === code) return onError(last, observed);
    return finalAnswer(observed, done);
  };
}

/** The first failed call of a run (the one the person's request made). */
function firstFailure(observed: readonly ObservedResult[]): ObservedResult | undefined {
  return observed.find((result) => !result.ok);
}

export const DEAD_END_RECIPES: readonly Recipe[] = [
  {
    id: "unknown-recipient",
    kind: "dead-end",
    tools: ["send_message", "find_contact", "list_contacts"],
    build(random) {
      const name = random.pick(STRANGERS);
      const text = random.pick(MESSAGE_TEXTS);
      const request = random.pick([`Text ${name}: ${text}`, `send ${name} a message saying "${text}"`, `Tell ${name} "${text}" by message`]);
      return {
        request,
        turns: [
          () => call("send_message", { to: name, text }),
          // The error says to look the person up; when that fails too, it says to list everyone.
          afterFailure("unknown_contact", () => call("find_contact", { query: name }), `Sent to ${name}.`),
          afterFailure("unknown_contact", () => call("list_contacts", {}), `Found ${name}:`),
          () => answer(`${name} is not in your contacts, so I couldn't send the message. Give me their phone number, or add them as a contact first.`),
        ],
      };
    },
  },
  {
    id: "song-not-in-library",
    kind: "dead-end",
    tools: ["play_music", "search_music"],
    build(random) {
      const [artist, genre] = random.pick(MISSING_ARTISTS);
      const request = random.pick([`play some ${artist}`, `put on ${artist}`, `I want to listen to ${artist}`, `play ${artist} please`]);
      return {
        request,
        turns: [
          () => call("play_music", { query: artist }),
          // The error says to find the right name with search_music; nothing matches, so the next search is for the artist's genre.
          afterFailure("not_found", () => call("search_music", { query: artist }), `Playing ${artist}.`),
          afterFailure("no_results", () => call("search_music", { query: genre }), `${artist} is in your library:`),
          (observed) => {
            const found = (lastResult(observed)?.value as { albums?: string[] } | undefined)?.albums ?? [];
            const offer = found.length > 0 ? ` For ${genre}, you have ${found.join(", ")}. Shall I play that?` : "";
            return answer(`There is nothing by ${artist} in your music library, so I can't play it.${offer}`);
          },
        ],
      };
    },
  },
  {
    id: "file-not-found",
    kind: "dead-end",
    tools: ["read_file", "list_files"],
    build(random) {
      const path = random.pick(MISSING_FILES);
      const folder = path.split("/")[0]!;
      const request = random.pick([`read me ${path}`, `what's in the file ${path}?`, `open ${path} and tell me what it says`]);
      return {
        request,
        turns: [
          () => call("read_file", { path }),
          afterFailure("file_not_found", () => call("list_files", { folder }), "The file says:"),
          (observed) => {
            const listing = lastResult(observed);
            const entries = ((listing?.value as { entries?: Array<{ name?: string }> } | undefined)?.entries ?? []).map((entry) => entry.name).filter((name) => name !== undefined);
            const names = entries.length > 0 ? `The ${folder} folder has ${entries.join(", ")}.` : `The ${folder} folder is empty.`;
            return firstFailure(observed) === undefined ? answer("Here it is.") : answer(`There is no file ${path}. ${names} Tell me if you meant one of those.`);
          },
        ],
      };
    },
  },
  {
    id: "order-not-found",
    kind: "dead-end",
    tools: ["track_order", "list_orders"],
    build(random) {
      const id = `order-${random.integer(7, 80)}`;
      const request = random.pick([`where is ${id}?`, `track ${id} please`, `when will ${id} arrive`]);
      return {
        request,
        turns: [
          () => call("track_order", { order_id: id }),
          afterFailure("order_not_found", () => call("list_orders", {}), `Here is ${id}:`),
          (observed) => {
            const orders = (lastResult(observed)?.value as { orders?: Array<{ id?: string; status?: string }> } | undefined)?.orders ?? [];
            const listed = orders.map((order) => `${order.id} (${order.status})`).join(", ");
            return answer(`I can't find ${id}. ${listed === "" ? "You have no orders." : `Your orders are ${listed}.`}`);
          },
        ],
      };
    },
  },
  {
    id: "forecast-too-far",
    kind: "dead-end",
    tools: ["get_weather"],
    build(random, clock) {
      const city = random.pick(CITIES);
      // Forecasts reach 14 days ahead.
      const date = clock.plusDays(random.integer(20, 60));
      const request = random.pick([`What's the weather in ${city} on ${date}?`, `will it rain in ${city} on ${clock.weekday(date)} ${date}`, `${city} forecast for ${date}`]);
      return {
        request,
        turns: [
          () => call("get_weather", { place: city, date }),
          // The error gives the last day forecasts reach: the furthest forecast is what can be told now.
          afterFailure("date_too_far", (failed) => call("get_weather", { place: city, date: lastForecastDay(failed) ?? clock.plusDays(14) }), `Weather in ${city} on ${date}:`),
          (observed) => {
            const reach = lastForecastDay(firstFailure(observed));
            const forecast = lastResult(observed)?.ok === true ? (lastResult(observed)?.value as { condition?: string; high_c?: number; low_c?: number }) : undefined;
            const furthest =
              forecast?.condition !== undefined ? ` The furthest forecast, for ${reach ?? "two weeks from now"}, is ${forecast.condition}, ${forecast.low_c}–${forecast.high_c} °C.` : "";
            return answer(`Forecasts only reach ${reach ?? "two weeks ahead"}, so I can't tell you the weather in ${city} on ${date} yet.${furthest} Ask me again nearer the time.`);
          },
        ],
      };
    },
  },
  {
    id: "booking-not-found",
    kind: "dead-end",
    tools: ["cancel_booking", "list_bookings"],
    build(random) {
      const id = `booking-${random.integer(5, 60)}`;
      const request = random.pick([`cancel ${id}`, `please cancel my booking ${id}`, `I don't need ${id} any more, cancel it`]);
      return {
        request,
        turns: [
          () => call("cancel_booking", { booking_id: id }),
          afterFailure("booking_not_found", () => call("list_bookings", {}), `Cancelled ${id}:`),
          (observed) => {
            const bookings = (lastResult(observed)?.value as { bookings?: Array<{ booking_id?: string; what?: string }> } | undefined)?.bookings ?? [];
            const listed = bookings.map((booking) => `${booking.booking_id} (${booking.what})`).join(", ");
            return answer(`There is no ${id}, so nothing was cancelled. ${listed === "" ? "You have no bookings." : `Your bookings are ${listed}.`}`);
          },
        ],
      };
    },
  },
  {
    id: "alarm-not-found",
    kind: "dead-end",
    tools: ["delete_alarm", "list_alarms"],
    build(random) {
      const label = random.pick(ALARM_LABELS);
      const [tool, request] = random.pick([
        ["delete_alarm", `delete my ${label} alarm`],
        ["delete_alarm", `get rid of the ${label} alarm`],
        ["snooze_alarm", `snooze the ${label} alarm`],
      ] as const);
      return {
        request,
        turns: [
          () => call(tool, { alarm: label }),
          afterFailure("alarm_not_found", () => call("list_alarms", {}), "Done."),
          (observed) => {
            const alarms = (lastResult(observed)?.value as { alarms?: Array<{ time?: string; label?: string }> } | undefined)?.alarms ?? [];
            const listed = alarms.map((alarm) => `${alarm.time} ${alarm.label}`).join(", ");
            return answer(`You have no ${label} alarm. ${listed === "" ? "You have no alarms at all." : `Your alarms are ${listed}. Did you mean one of those?`}`);
          },
        ],
      };
    },
  },
];
