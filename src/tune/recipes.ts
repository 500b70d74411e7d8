import type { Profile } from "../apps/profile.js";
import type { GenerateRequest } from "../model/types.js";
import type { ScriptedReply } from "../testing/scripted-model.js";
import type { Tool } from "../tools/tool.js";
import type { SeededRandom } from "./random.js";
import { ABSTENTION_RECIPES } from "./abstention-recipes.js";
import { APP_CALL_RECIPES, COMPLETION_RECIPES } from "./app-call-recipes.js";
import { composedRecipes } from "./composed-recipes.js";
import { DEAD_END_RECIPES } from "./dead-end-recipes.js";
import { OWN_FORM_RECIPES } from "./own-form-recipes.js";
import { OWN_TOOL_RECIPES } from "./own-tool-recipes.js";
import { answer, call, capitalise, finalAnswer, lastResult, summariseResult } from "./replies.js";
import { CITIES, FIRST_NAMES, MESSAGE_TEXTS } from "./vocabulary.js";

/** What a tool call of the trajectory returned, read from the real tool. */
export interface ObservedResult {
  name: string;
  arguments: Record<string, unknown>;
  ok: boolean;
  value?: unknown;
  error?: { code: string; message: string };
}

/**
 * One model turn of a trajectory, decided from the results seen so far (so a
 * final answer can quote the real result, and a retry can use the number the
 * app's error gave).
 */
export type PlannedTurn = (observed: readonly ObservedResult[]) => ScriptedReply;

/**
 * `recovery`: a failed call the model fixes (it retries as the error says);
 * `dead-end`: a failed call it cannot fix, so it stops and says why.
 */
export type ExampleKind = "single-call" | "check-then-act" | "recovery" | "dead-end" | "multi-app" | "abstention" | "clarification";

/** A request a person would write and the turns the model should take for it. */
export interface RecipeInstance {
  request: string;
  /**
   * The tools the agent holds instead of the profile's apps (the user's own
   * tools, as MCP or the server hands them over). Default: the profile's.
   */
  tools?: Tool[];
  /** Changes the scratch profile before the run (Wi-Fi off, a low tank). */
  prepare?: (profile: Profile) => Promise<void>;
  turns: PlannedTurn[];
}

export interface RecipeClock {
  /** `YYYY-MM-DD` of the profile's today. */
  today: string;
  /** `YYYY-MM-DD` of today plus `days`. */
  plusDays(days: number): string;
  /** Weekday name of a `YYYY-MM-DD`. */
  weekday(date: string): string;
}

export interface Recipe {
  id: string;
  kind: ExampleKind;
  /** The tools the correct trajectory calls (for coverage reports). */
  tools: readonly string[];
  /** Draws per round of the build (default 1): sets the mix of kinds without copies of a recipe. */
  weight?: number;
  build(random: SeededRandom, clock: RecipeClock): RecipeInstance;
}

const TIMER_LABELS = ["Tea", "Bread", "Rice", "Eggs", "Nap", "Stretch", "Oven", "Pizza", "Break", "Laundry"];
const ALARM_LABELS = ["Run", "Flight", "Meds", "School run", "Standup", "Train"];
const TASK_TITLES = ["Renew the car insurance", "Book a haircut", "Call the plumber", "Pay the gym fee", "Return the library books", "Buy a birthday card for Ana", "Water the plants", "Back up the laptop"];
const EVENT_TITLES = ["Lunch with Jules", "Piano lesson", "Budget review", "Yoga class", "Parent meeting", "Car service"];
const SHOPPING_ITEMS: ReadonlyArray<[string, string | undefined]> = [["eggs", undefined], ["oat milk", "l"], ["apples", "kg"], ["coffee beans", undefined], ["rice", "kg"], ["tomatoes", "kg"], ["bread", undefined]];
const WORKOUTS = ["running", "cycling", "swimming", "yoga", "walking", "rowing"] as const;

function clockTime(hour: number, minute: number): string {
  return `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
}

function spokenTime(hour: number, minute: number): string {
  const suffix = hour < 12 ? "am" : "pm";
  const twelve = hour % 12 === 0 ? 12 : hour % 12;
  return minute === 0 ? `${twelve} ${suffix}` : `${twelve}:${String(minute).padStart(2, "0")} ${suffix}`;
}

/** The read-only tools without required parameters, with the ways people ask for them. */
const READ_REQUESTS: Record<string, readonly string[]> = {
  list_alarms: ["Which alarms do I have set?", "show me my alarms", "What alarms are on right now?"],
  list_timers: ["Are any timers running?", "how long is left on my timers", "List the timers please"],
  get_device_status: ["Is my Wi-Fi on?", "How much battery do I have left?", "What's the phone's status?"],
  get_account_balances: ["How much money is in my accounts?", "what's my bank balance", "Show my account balances"],
  view_cart: ["What's in my shopping cart?", "show the cart", "Which products did I put in the cart?"],
  get_now_playing: ["What song is this?", "what's playing right now", "Which track is on?"],
  list_bills: ["Which bills do I still have to pay?", "any unpaid bills?", "Show me my bills"],
  check_tyre_pressure: ["Are the tyres ok?", "check the tire pressure on the car", "How are my tyre pressures?"],
  get_fitness_progress: ["How am I doing on my fitness goals?", "show my workout progress this week", "Am I on track with my step goal?"],
  list_saved_places: ["What places have I saved on the map?", "show my saved places", "list my saved locations"],
  list_playlists: ["Which playlists do I have?", "show my playlists", "What playlists did I make?"],
  check_fuel_level: ["How much fuel is in the car?", "is the tank nearly empty?", "what's the fuel level"],
  list_bookings: ["What trips have I booked?", "show my travel bookings", "Do I have any hotel or flight bookings?"],
  list_orders: ["Where are my orders?", "show my recent orders", "list what I ordered online"],
  list_conversations: ["Who texted me lately?", "show my chats", "Which conversations do I have?"],
  get_car_status: ["Is the car locked?", "what's the status of my car", "Is the engine running?"],
};

export const RECIPES: readonly Recipe[] = [
  {
    id: "timer",
    kind: "single-call",
    tools: ["start_timer"],
    build(random) {
      const minutes = random.pick([3, 5, 7, 12, 18, 25, 40, 55, 75, 95]);
      const label = random.pick(TIMER_LABELS);
      const duration = `${minutes} minutes`;
      const request = random.pick([
        `Set a ${minutes} minute timer for the ${label.toLowerCase()}`,
        `timer ${minutes} min, call it ${label}`,
        `Could you start a timer of ${minutes} minutes named ${label}?`,
        `${label} needs ${minutes} minutes, time it for me`,
        `start a ${label.toLowerCase()} timer: ${minutes} minutes`,
        `Remind me in ${minutes} minutes with a timer labelled ${label}`,
      ]);
      return { request, turns: [() => call("start_timer", { duration, label }), (observed) => finalAnswer(observed, `Your ${label} timer is running for ${duration}.`)] };
    },
  },
  {
    id: "alarm",
    kind: "single-call",
    tools: ["set_alarm"],
    build(random) {
      const hour = random.integer(5, 9);
      const minute = random.pick([0, 15, 30, 45, 10, 50]);
      const label = random.pick(ALARM_LABELS);
      const request = random.pick([
        `Wake me up at ${spokenTime(hour, minute)} for the ${label.toLowerCase()}`,
        `set an alarm ${clockTime(hour, minute)} labelled ${label}`,
        `I need an alarm at ${spokenTime(hour, minute)} called ${label}, please`,
        `alarm for ${spokenTime(hour, minute)} (${label})`,
      ]);
      return { request, turns: [() => call("set_alarm", { time: clockTime(hour, minute), label }), (observed) => finalAnswer(observed, `Alarm set for ${spokenTime(hour, minute)}.`)] };
    },
  },
  {
    id: "weather",
    kind: "single-call",
    tools: ["get_weather"],
    build(random, clock) {
      const city = random.pick(CITIES);
      const offset = random.pick([0, 1, 2, 3]);
      const date = clock.plusDays(offset);
      const day = offset === 0 ? "today" : offset === 1 ? "tomorrow" : `on ${clock.weekday(date)}`;
      const request = random.pick([
        `What's the weather in ${city} ${day}?`,
        `will it rain in ${city} ${day}`,
        `How warm will it be in ${city} ${day}?`,
        `${city} weather ${day} please`,
        `Should I take an umbrella to ${city} ${day}?`,
      ]);
      return {
        request,
        turns: [() => call("get_weather", { place: city, date }), (observed) => finalAnswer(observed, `Here is the weather in ${city} ${day}.`)],
      };
    },
  },
  {
    id: "task",
    kind: "single-call",
    tools: ["add_task"],
    build(random, clock) {
      const title = random.pick(TASK_TITLES);
      const offset = random.pick([1, 2, 4, 6]);
      const due = clock.plusDays(offset);
      const when = offset === 1 ? "tomorrow" : `by ${clock.weekday(due)}`;
      const request = random.pick([
        `Add a task to ${title.toLowerCase()} ${when}`,
        `remind me to ${title.toLowerCase()}, due ${when}`,
        `put "${title}" on my to-do list for ${when}`,
        `New task: ${title}, due ${when}`,
      ]);
      return { request, turns: [() => call("add_task", { title, due }), (observed) => finalAnswer(observed, `Added "${title}" to your tasks, due ${when}.`)] };
    },
  },
  {
    id: "message",
    kind: "single-call",
    tools: ["send_message"],
    build(random) {
      const name = random.pick(FIRST_NAMES);
      const text = random.pick(MESSAGE_TEXTS);
      const request = random.pick([
        `Text ${name}: ${text}`,
        `send ${name} a message saying "${text}"`,
        `Tell ${name} "${text}" by message`,
        `message ${name} that ${text.charAt(0).toLowerCase()}${text.slice(1)}`,
      ]);
      const written = request.startsWith("message ") ? `${text.charAt(0).toLowerCase()}${text.slice(1)}` : text;
      return { request, turns: [() => call("send_message", { to: name, text: written }), (observed) => finalAnswer(observed, `Sent to ${name}.`)] };
    },
  },
  {
    id: "event",
    kind: "single-call",
    tools: ["create_event"],
    build(random, clock) {
      const title = random.pick(EVENT_TITLES);
      const offset = random.integer(1, 9);
      const date = clock.plusDays(offset);
      const hour = random.integer(9, 18);
      const day = offset === 1 ? "tomorrow" : `${clock.weekday(date)} ${date}`;
      const request = random.pick([
        `Put ${title.toLowerCase()} in my calendar ${day} at ${spokenTime(hour, 0)}`,
        `schedule "${title}" for ${day}, ${spokenTime(hour, 0)}`,
        `Add an event ${title} on ${day} at ${clockTime(hour, 0)}`,
      ]);
      return {
        request,
        turns: [() => call("create_event", { title, date, time: clockTime(hour, 0) }), (observed) => finalAnswer(observed, `${title} is in your calendar.`)],
      };
    },
  },
  {
    id: "shopping-list",
    kind: "single-call",
    tools: ["add_to_shopping_list"],
    build(random) {
      const [item, unit] = random.pick(SHOPPING_ITEMS);
      const quantity = random.integer(1, 6);
      const amount = unit === undefined ? `${quantity}` : `${quantity} ${unit}`;
      const request = random.pick([`Add ${amount} of ${item} to the shopping list`, `we need ${item}, ${amount}`, `put ${amount} ${item} on my list`]);
      return {
        request,
        turns: [
          () => call("add_to_shopping_list", { item, quantity, ...(unit !== undefined ? { unit } : {}) }),
          (observed) => finalAnswer(observed, `${capitalise(item)} is on your shopping list.`),
        ],
      };
    },
  },
  {
    id: "workout",
    kind: "single-call",
    tools: ["log_workout"],
    build(random) {
      const type = random.pick(WORKOUTS);
      const minutes = random.pick([20, 25, 30, 45, 60, 90]);
      const request = random.pick([`Log ${minutes} minutes of ${type}`, `I did ${type} for ${minutes} min today, record it`, `add a ${minutes}-minute ${type} workout`]);
      return { request, turns: [() => call("log_workout", { type, minutes }), (observed) => finalAnswer(observed, `Logged ${minutes} minutes of ${type}.`)] };
    },
  },
  {
    id: "volume",
    kind: "single-call",
    tools: ["set_volume"],
    build(random) {
      const level = random.pick([10, 20, 35, 50, 65, 80]);
      const request = random.pick([`Turn the volume to ${level}%`, `set volume ${level}`, `volume at ${level} percent please`]);
      return { request, turns: [() => call("set_volume", { level }), (observed) => finalAnswer(observed, `Volume is at ${level}%.`)] };
    },
  },
  {
    id: "read-state",
    kind: "single-call",
    tools: Object.keys(READ_REQUESTS),
    build(random) {
      const tool = random.pick(Object.keys(READ_REQUESTS));
      const request = random.pick(READ_REQUESTS[tool]!);
      return { request, turns: [() => call(tool, {}), (observed) => finalAnswer(observed, "Here it is.")] };
    },
  },
  {
    id: "fill-tank",
    kind: "check-then-act",
    tools: ["check_fuel_level", "add_fuel"],
    build(random) {
      const request = random.pick(["Fill up the car", "top up the tank please", "Fill the car's tank to the top", "refuel the car completely"]);
      return {
        request,
        turns: [
          () => call("check_fuel_level", {}),
          (observed) => {
            const level = lastResult(observed)?.value as { fuel_gallons?: number; tank_capacity_gallons?: number } | undefined;
            const room = Math.max(0, Math.floor((level?.tank_capacity_gallons ?? 0) - (level?.fuel_gallons ?? 0)));
            return room > 0 ? call("add_fuel", { gallons: room }) : answer("The tank is already full.");
          },
          (observed) => finalAnswer(observed, "The tank is full."),
        ],
      };
    },
  },
  {
    id: "fuel-capacity",
    kind: "recovery",
    tools: ["add_fuel"],
    build(random) {
      const asked = random.pick([60, 80, 100, 200]);
      const request = random.pick([`Put ${asked} gallons of fuel in the car`, `add ${asked} gallons to the tank`, `fuel: ${asked} gallons please`]);
      return {
        request,
        turns: [
          () => call("add_fuel", { gallons: asked }),
          (observed) => {
            const last = lastResult(observed);
            if (last?.ok === true) return finalAnswer(observed, `Added ${asked} gallons.`);
            const fits = /only (\d+(?:\.\d+)?) fit|Add (\d+(?:\.\d+)?) gallons or less/i.exec(last?.error?.message ?? "");
            const room = Math.floor(Number(fits?.[1] ?? fits?.[2] ?? 0));
            return room > 0 ? call("add_fuel", { gallons: room }) : answer(`I could not add fuel: ${last?.error?.message ?? "the car refused"}`);
          },
          (observed) => finalAnswer(observed, `Only part of that fits, so I filled the tank to the top.`),
        ],
      };
    },
  },
  {
    id: "weather-offline",
    kind: "recovery",
    tools: ["get_weather", "set_wifi"],
    build(random, clock) {
      const city = random.pick(CITIES);
      const request = random.pick([`What's the weather like in ${city} today?`, `is it cold in ${city} right now`, `${city} forecast for today?`]);
      return {
        request,
        prepare: async (profile) => {
          const tools = new Map(profile.tools().map((tool) => [tool.name, tool]));
          await profile.runTool(tools.get("set_wifi")!, { on: false });
          await profile.runTool(tools.get("set_mobile_data")!, { on: false });
        },
        turns: [
          () => call("get_weather", { place: city, date: clock.today }),
          (observed) => (lastResult(observed)?.ok === false ? call("set_wifi", { on: true }) : finalAnswer(observed, `Here is the weather in ${city}.`)),
          () => call("get_weather", { place: city, date: clock.today }),
          (observed) => finalAnswer(observed, `Wi-Fi was off, so I turned it on. Weather in ${city}:`),
        ],
      };
    },
  },
  {
    id: "weather-to-friend",
    kind: "multi-app",
    tools: ["get_weather", "send_message"],
    build(random, clock) {
      const city = random.pick(CITIES);
      const name = random.pick(FIRST_NAMES);
      const request = random.pick([
        `Check tomorrow's weather in ${city} and text it to ${name}`,
        `send ${name} the weather for ${city} tomorrow`,
        `Let ${name} know what the weather in ${city} will be tomorrow`,
      ]);
      return {
        request,
        turns: [
          () => call("get_weather", { place: city, date: clock.plusDays(1) }),
          (observed) => call("send_message", { to: name, text: `Weather in ${city} tomorrow: ${summariseResult(lastResult(observed)?.value)}` }),
          (observed) => finalAnswer(observed, `I sent ${name} the weather for ${city}.`),
        ],
      };
    },
  },
  {
    id: "missing-detail",
    kind: "clarification",
    tools: [],
    weight: 2,
    build(random) {
      // Requests that lean on something never said ("him", "it"); the router forces a call on bare ones such as "Set an alarm", so those are not here.
      const [request, reply] = random.pick([
        ["move it to next week", "What should I move to next week: an event in your calendar, or a task?"],
        ["text him back", "Who should I text back, and what should the message say?"],
        ["send him the usual", "Who should I send it to, and what is the usual message?"],
        ["tell her I'm on my way", "Who should I tell? Give me her name and I'll send the message."],
        ["pay him back", "Who should I pay back, and how much?"],
        ["cancel it", "What should I cancel: an event, an alarm, an order or a booking?"],
        ["share it with them", "What should I share, and with whom?"],
        ["send her the file", "Which file should I send, and who is she? Give me a name from your contacts."],
        ["add that to the list", "What should I add, and to which list: shopping, or your tasks?"],
        ["remind me about the thing later", "What should I remind you about, and when?"],
        ["reply to his email", "Whose email should I reply to, and what should the reply say?"],
        ["book it again", "What should I book again: a flight, a hotel, or something in your calendar?"],
        ["play that song again", "Which song do you mean? Tell me its name or the artist."],
      ] as const);
      return { request, turns: [() => answer(reply)] };
    },
  },
  ...DEAD_END_RECIPES,
  ...ABSTENTION_RECIPES,
  ...OWN_TOOL_RECIPES,
];

/**
 * v3's recipes as v4 draws them: abstentions and clarifications twice as
 * often, so that with v4's 48 more recipes of calls they still make about a
 * third of a round (v3: 45%, and its tuned model answered in words to plain
 * requests it should have served; without this, 22%).
 */
const V3_IN_V4: readonly Recipe[] = RECIPES.map((recipe) =>
  recipe.kind === "abstention" || recipe.kind === "clarification" ? { ...recipe, weight: 2 * (recipe.weight ?? 1) } : recipe,
);

/**
 * The recipe sets `botpsy tune data --recipes` draws from. v3 is the set the
 * shipped botpsy-v3 adapters' data was built from: it stays as it is, so that
 * v3 and a seed make the same examples as before. v4 is v3 (its abstentions
 * and clarifications drawn twice as often) plus single calls of more app
 * tools and recoveries that finish the task after the fix
 * (app-call-recipes.ts). v5 is v4 plus the user's own tools whose
 * descriptions say what form a value takes (a rate as a decimal, a date in
 * DD/MM/YYYY, a unit code, an optional unit only when asked for:
 * own-form-recipes.ts). v7 is v5 plus tools composed from parts
 * (composed-recipes.ts): many more tools, named and shaped in many ways, with
 * choices named by paraphrase, lists, names copied whole and optional values
 * given or left out, and requests for what none of the offered tools does;
 * drawn so that they make about two fifths of a round.
 */
const V4: readonly Recipe[] = [...V3_IN_V4, ...APP_CALL_RECIPES, ...COMPLETION_RECIPES];

const V5: readonly Recipe[] = [...V4, ...OWN_FORM_RECIPES];

const V7: readonly Recipe[] = [...V5, ...composedRecipes({ call: 60, unserved: 30 })];

export const RECIPE_SETS = {
  v3: RECIPES,
  v4: V4,
  v5: V5,
  v6: V5,
  v7: V7,
} as const satisfies Record<string, readonly Recipe[]>;

export type RecipeSetName = keyof typeof RECIPE_SETS;

/**
 * How a set trains the first turns the router forces to a call (see
 * `ForcedTurnTraining`). v3 to v5 put the call prefix in the context, as the
 * backend does, and drop examples that answer such a turn in words: the
 * grammar would not let the model write them. v6 draws v5's recipes and
 * trains those turns as free ones: the call prefix is learned where a call
 * is right, and an answer in words where it is not (a near miss the router
 * mistook for a request), which is the lead a forced-call floor reads.
 */
export const RECIPE_SET_FORCED_TURNS: Record<RecipeSetName, ForcedTurnTraining> = {
  v3: "prefix-in-context",
  v4: "prefix-in-context",
  v5: "prefix-in-context",
  v6: "trained",
  v7: "prefix-in-context",
};

/**
 * `prefix-in-context`: a router-forced turn is rendered as the backend plays
 * it (the call prefix is context, not learned) and an example answering it
 * in words is dropped. `trained`: it is rendered as a free turn, so the
 * model learns whether to open a call there, and an answer in words is kept.
 * A turn the loop forces (recovery) is always rendered as it is played.
 */
export type ForcedTurnTraining = "prefix-in-context" | "trained";

/** Whether a turn is trained as a free one under `forcedTurns`: the router's forced guess, where the set trains those turns. */
export function trainedAsFreeTurn(request: Pick<GenerateRequest, "routedChoice">, forcedTurns: ForcedTurnTraining | undefined): boolean {
  return forcedTurns === "trained" && request.routedChoice === true;
}

export const RECIPE_SET_NAMES = Object.keys(RECIPE_SETS) as RecipeSetName[];

export function isRecipeSetName(name: string): name is RecipeSetName {
  return Object.hasOwn(RECIPE_SETS, name);
}

/** A recipe of any set, by id (v3's as v3 draws it). */
export function findRecipe(id: string): Recipe | undefined {
  return RECIPES.find((recipe) => recipe.id === id) ?? RECIPE_SETS.v7.find((recipe) => recipe.id === id);
}
