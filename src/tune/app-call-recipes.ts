import type { Profile } from "../apps/profile.js";
import { CATALOG, type Product } from "../apps/errands/catalog.js";
import { CATEGORIES } from "../apps/errands/finance.js";
import { PLACES } from "../apps/errands/maps.js";
import { NEWS_TOPICS } from "../apps/finding/news.js";
import { MUSIC_LIBRARY } from "../apps/life/music.js";
import { RECIPES as RECIPE_BOOK } from "../apps/life/recipe-book.js";
import { VIDEO_LIBRARY } from "../apps/life/video.js";
import { messagesCollection, readAccount, writeAccount } from "../apps/messages/messages.js";
import type { ScriptedReply } from "../testing/scripted-model.js";
import type { ObservedResult, PlannedTurn, Recipe, RecipeClock } from "./recipes.js";
import { answer, call, capitalise, finalAnswer, lastResult } from "./replies.js";
import { CITIES, FIRST_NAMES } from "./vocabulary.js";

/**
 * The recipes of set v4 beyond v3: plain requests for the app tools a person
 * uses every day (play some jazz, what did Maria say, am I free tomorrow),
 * each answered with one call (two where the second needs an id only the
 * first finds: a message to react to, an email to read), and recoveries that
 * finish the task after the fix (Wi-Fi off: turn it on, then send the
 * message, then answer). A model tuned on v3 answered such requests in words
 * and stopped after a fix: v3 has single calls of about ten tools and
 * recoveries that end at the fix's result.
 *
 * Every value is one the demo profile holds (a song of the library, a
 * contact with a chat, a task that is open), so each call succeeds against
 * the scratch profile; where a request only makes sense in another state
 * (pause the music that plays, turn on the Wi-Fi that is off), `prepare` puts
 * the profile in it. Relative days are written as the dates the recipe clock
 * gives, as the weather and event recipes of v3 write them.
 */

/** The people the messages app seeds a chat with, with a word of that chat and how a person names its topic. */
const CHATS: ReadonlyArray<readonly [string, string, string]> = [
  ["Frank", "meeting room", "the meeting room"],
  ["Maria", "dinner", "dinner on Saturday"],
  ["Priya", "proposal", "the proposal"],
  ["Tom", "build", "the build"],
  ["Ana", "bike", "the bike"],
  ["Jules", "football", "football"],
  ["Lena", "slides", "the slides"],
];
/** The playlists the music app seeds. */
const PLAYLISTS = ["Running", "Focus", "Sunday Morning"];
/** Videos the video app seeds on the watch list (adding them again is refused). */
const SEEDED_WATCH_LIST = new Set(["v-orbit", "v-seven-hills", "v-wild"]);
/** Words of the calendar's seeded events, and how a person names each event. */
const EVENT_WORDS: ReadonlyArray<readonly [string, string]> = [
  ["haircut", "my haircut"],
  ["offsite", "the team offsite"],
  ["Q4", "the Q4 report deadline"],
  ["Atlas", "the Atlas review"],
  ["yoga", "yoga"],
  ["Lena", "the call with Lena"],
  ["birthday", "Mom's birthday dinner"],
];
/** Open tasks the tasks app seeds: a part of the title that finds it, and how a person says they did it. */
const OPEN_TASKS: ReadonlyArray<readonly [string, string]> = [
  ["dry cleaning", "I picked up the dry cleaning"],
  ["car insurance", "I renewed the car insurance"],
  ["landlord", "I called the landlord about the heater"],
  ["roadmap slides", "I reviewed Frank's roadmap slides"],
  ["birthday present", "I bought Mom's birthday present"],
  ["pilot proposal", "I sent Omar the pilot proposal"],
  ["Berlin trip", "the Berlin flights are booked"],
];
/** Words that find seeded tasks, and how a person names the topic. */
const TASK_WORDS: ReadonlyArray<readonly [string, string]> = [
  ["report", "the report"],
  ["insurance", "insurance"],
  ["flights", "flights"],
  ["landlord", "the landlord"],
  ["dry cleaning", "dry cleaning"],
  ["proposal", "the proposal"],
  ["present", "a present"],
];
/** The task lists the tasks app seeds. */
const TASK_LISTS = ["Work", "Personal", "Errands"];
/** Words of the seeded emails (subjects, bodies, senders), and how a person names the topic. */
const EMAIL_WORDS: ReadonlyArray<readonly [string, string]> = [
  ["pilot", "the pilot"],
  ["offsite", "the offsite"],
  ["agenda", "the agenda"],
  ["lease", "my lease"],
  ["statement", "the bank statement"],
  ["hike", "the hike photos"],
  ["check-up", "the dentist check-up"],
  ["Berlin", "the Berlin booking"],
];
/** Contacts who sent a seeded email to the inbox. */
const EMAIL_SENDERS = ["Frank", "Priya", "Maria", "Omar", "Tom", "Ana", "Lena", "Jules"];
/** Categories the finance app seeds a monthly budget for. */
const BUDGETED = ["groceries", "dining", "transport", "entertainment", "shopping"] as const;
/** Spending categories with seeded transactions, and how a person names each. */
const SPENDING: ReadonlyArray<readonly [(typeof CATEGORIES)[number], string]> = [
  ["groceries", "groceries"],
  ["dining", "eating out"],
  ["transport", "transport"],
  ["fuel", "fuel"],
  ["health", "health"],
  ["shopping", "shopping"],
  ["entertainment", "entertainment"],
  ["utilities", "utilities"],
];
/** Products a person names in a few words: the catalog id, those words (a prefix or the words of one product's name), and them with an article. */
const PRODUCTS: ReadonlyArray<readonly [string, string, string]> = [
  ["p-mouse", "wireless mouse", "a wireless mouse"],
  ["p-mug", "ceramic mug", "a ceramic mug"],
  ["p-yoga-mat", "yoga mat", "a yoga mat"],
  ["p-charger", "USB-C charger", "a USB-C charger"],
  ["p-power-bank", "power bank", "a power bank"],
  ["p-water-bottle", "steel water bottle", "a steel water bottle"],
  ["p-desk-lamp", "LED desk lamp", "an LED desk lamp"],
  ["p-socks", "sports socks", "sports socks"],
  ["p-candle", "scented candle", "a scented candle"],
  ["p-notebook", "dotted notebook", "a dotted notebook"],
  ["p-batteries", "AA batteries", "AA batteries"],
  ["p-headphones", "wireless headphones", "wireless headphones"],
];
/** Words that find items of the bundled news feed. */
const NEWS_WORDS: ReadonlyArray<readonly [string, string]> = [
  ["tram", "the tram"],
  ["marathon", "the marathon"],
  ["interest rates", "interest rates"],
  ["comet", "the comet"],
  ["farmers market", "the farmers market"],
  ["flu", "the flu"],
  ["bike lanes", "the new bike lanes"],
  ["metro", "the metro works"],
];
/** How a person names each news topic. */
const TOPIC_WORDS: Record<(typeof NEWS_TOPICS)[number], readonly string[]> = {
  world: ["world", "international"],
  business: ["business", "economy"],
  technology: ["tech", "technology"],
  science: ["science"],
  sports: ["sports", "sport"],
  health: ["health"],
  entertainment: ["entertainment", "culture"],
  local: ["local", "Lisbon"],
};
/** Short messages of the terse "message Ana: …" kind. */
const SHORT_TEXTS = [
  "I'm on my way",
  "running late, start without me",
  "can you call me when you're free?",
  "see you at 7",
  "got the tickets!",
  "need anything from the bakery?",
  "happy birthday!",
  "parking now, 2 min",
];
/** Notes a person emails: the subject and the text. */
const EMAIL_NOTES: ReadonlyArray<readonly [string, string]> = [
  ["Slides for Friday", "I'll send the slides for Friday by tonight."],
  ["Tomorrow's call", "Can we move tomorrow's call to 11?"],
  ["Invoice", "The invoice is paid, thanks for the reminder."],
  ["Dinner", "Dinner on Thursday works for me."],
  ["Report draft", "The report draft is in the shared folder."],
];

/** Places in and around Lisbon that every travel mode reaches from home or work. */
const NEARBY_PLACES = PLACES.filter((place) => ["Lisbon", "Cascais", "Sintra"].includes(place.city) && !["address", "office"].includes(place.category));
const GENRES = [...new Set(MUSIC_LIBRARY.map((track) => track.genre))];
const ARTISTS = [...new Set(MUSIC_LIBRARY.map((track) => track.artist))];
const ALBUMS = [...new Set(MUSIC_LIBRARY.map((track) => track.album))];
const DOCUMENTARY_GENRES = [...new Set(VIDEO_LIBRARY.filter((video) => video.kind === "documentary").map((video) => video.genre))];
const MOVIE_GENRES = [...new Set(VIDEO_LIBRARY.filter((video) => video.kind === "movie").map((video) => video.genre))];
const SERIES_GENRES = [...new Set(VIDEO_LIBRARY.filter((video) => video.kind === "series").map((video) => video.genre))];

function product(id: string): Product {
  const found = CATALOG.find((candidate) => candidate.id === id);
  if (found === undefined) throw new RangeError(`The catalog has no product ${id}: update PRODUCTS in app-call-recipes.ts.`);
  return found;
}

/** "today", "tomorrow", or "on Friday" for a date up to six days ahead. */
function dayWords(offset: number, date: string, clock: RecipeClock): string {
  return offset === 0 ? "today" : offset === 1 ? "tomorrow" : `on ${clock.weekday(date)}`;
}

/** A request of one call and an answer from its result. */
function singleCall(request: string, tool: string, args: Record<string, unknown>, done: string): { request: string; turns: PlannedTurn[] } {
  return { request, turns: [() => call(tool, args), (observed) => finalAnswer(observed, done)] };
}

/** Runs one of the profile's tools (a `prepare` putting the profile in the state a request assumes). */
async function runProfileTool(profile: Profile, name: string, args: Record<string, unknown>): Promise<void> {
  const tool = profile.tools().find((candidate) => candidate.name === name);
  if (tool === undefined) throw new RangeError(`The profile has no tool ${name}.`);
  await profile.runTool(tool, args);
}

export const APP_CALL_RECIPES: readonly Recipe[] = [
  {
    id: "play-music-kind",
    kind: "single-call",
    tools: ["play_music"],
    build(random) {
      const form = random.pick(["genre", "artist", "album"] as const);
      if (form === "genre") {
        const genre = random.pick(GENRES);
        const request = random.pick([
          `put on some ${genre}`,
          `play ${genre}`,
          `I'm in the mood for ${genre}, play some`,
          `Can you play some ${genre} music?`,
          `some ${genre} please`,
          `play me ${genre} while I cook`,
        ]);
        return singleCall(request, "play_music", { query: genre }, `Playing ${genre}.`);
      }
      const name = form === "artist" ? random.pick(ARTISTS) : random.pick(ALBUMS);
      const request =
        form === "artist"
          ? random.pick([`play something by ${name}`, `put on ${name}`, `I want to hear ${name}`, `Play ${name}, please`, `let's have some ${name}`])
          : random.pick([`play the album ${name}`, `put on ${name}, the whole album`, `Can you play the ${name} album?`, `album ${name} please`]);
      return singleCall(request, "play_music", { query: name }, `Playing ${name}.`);
    },
  },
  {
    id: "play-song",
    kind: "single-call",
    tools: ["play_music"],
    build(random) {
      if (random.next() < 0.25) {
        const playlist = random.pick(PLAYLISTS);
        const shuffle = random.next() < 0.4;
        const request = shuffle
          ? random.pick([`shuffle my ${playlist} playlist`, `play ${playlist} on shuffle`, `Shuffle the ${playlist} playlist please`])
          : random.pick([`play my ${playlist} playlist`, `put on the ${playlist} playlist`, `Start my ${playlist} list`]);
        return singleCall(request, "play_music", { query: playlist, ...(shuffle ? { shuffle: true } : {}) }, `Playing your ${playlist} playlist.`);
      }
      const track = random.pick(MUSIC_LIBRARY);
      const request = random.pick([
        `play ${track.title}`,
        `Play "${track.title}"`,
        `put on ${track.title} by ${track.artist}`,
        `I want to listen to ${track.title}`,
        `play the song ${track.title}`,
        `can u play ${track.title}`,
      ]);
      return singleCall(request, "play_music", { query: track.title }, `Playing ${track.title}.`);
    },
  },
  {
    id: "music-controls",
    kind: "single-call",
    tools: ["pause_music", "resume_music", "skip_track"],
    build(random) {
      const form = random.pick(["pause", "resume", "skip"] as const);
      if (form === "pause") {
        const request = random.pick(["Pause this song", "stop the music for a sec", "hold the music, I'm on a call", "pause it", "pause the song please"]);
        // The demo player is paused: the request assumes music playing.
        return { ...singleCall(request, "pause_music", {}, "Paused."), prepare: (profile) => runProfileTool(profile, "play_music", {}) };
      }
      if (form === "resume") {
        const request = random.pick(["resume the music", "unpause", "carry on playing the song", "Continue the music please", "keep the music going"]);
        return singleCall(request, "resume_music", {}, "The music is playing again.");
      }
      const count = random.pick([1, 1, 1, 2, 3]);
      const request =
        count === 1
          ? random.pick(["next track", "Skip!", "I don't like this one, next", "go to the next song", "skip this track"])
          : random.pick([`skip ${count} songs`, `skip ahead ${count} tracks`, `Jump ${count} songs forward`]);
      return singleCall(request, "skip_track", count === 1 ? {} : { count }, "Skipped.");
    },
  },
  {
    id: "queue-song",
    kind: "single-call",
    tools: ["queue_track"],
    build(random) {
      const track = random.pick(MUSIC_LIBRARY);
      const next = random.next() < 0.6;
      const request = next
        ? random.pick([`play ${track.title} next`, `Queue ${track.title} after this one`, `put ${track.title} on right after this song`])
        : random.pick([`add ${track.title} to the queue`, `Queue up ${track.title} by ${track.artist}`, `stick ${track.title} at the end of the queue`]);
      return singleCall(request, "queue_track", { track: track.title, ...(next ? { next: true } : {}) }, `${track.title} is in the queue.`);
    },
  },
  {
    id: "search-music",
    kind: "single-call",
    tools: ["search_music"],
    build(random) {
      const artist = random.pick(ARTISTS);
      const request = random.pick([`do I have any songs by ${artist}?`, `Which ${artist} songs are in my library?`, `find ${artist} in my music`, `search my music for ${artist}`]);
      return singleCall(request, "search_music", { query: artist }, `Songs by ${artist}:`);
    },
  },
  {
    id: "read-chat",
    kind: "single-call",
    tools: ["read_messages"],
    build(random) {
      const [name] = random.pick(CHATS);
      const request = random.pick([
        `what did ${name} say last?`,
        `Read me ${name}'s messages`,
        `show my chat with ${name}`,
        `any new messages from ${name}?`,
        `What was ${name}'s last text?`,
        `open my conversation with ${name}`,
      ]);
      return singleCall(request, "read_messages", { with: name }, `Your chat with ${name}:`);
    },
  },
  {
    id: "search-chats",
    kind: "single-call",
    tools: ["search_messages"],
    build(random) {
      const [name, word, topic] = random.pick(CHATS);
      if (random.next() < 0.4) {
        const request = random.pick([`what did ${name} text me about ${topic}?`, `find ${name}'s message about ${topic}`, `Search my chat with ${name} for ${word}`]);
        return singleCall(request, "search_messages", { query: word, with: name }, `Messages with ${name} about ${topic}:`);
      }
      const request = random.pick([`find the text about ${topic}`, `search my messages for ${word}`, `Who messaged me about ${topic}?`, `did anyone text me about ${topic}`]);
      return singleCall(request, "search_messages", { query: word }, `Messages about ${topic}:`);
    },
  },
  {
    id: "react-to-message",
    kind: "check-then-act",
    tools: ["read_messages", "react_to_message"],
    build(random) {
      const [name] = random.pick(CHATS);
      const [reaction, forms] = random.pick([
        ["like", [`give ${name}'s last message a thumbs up`, `Like what ${name} sent me`, `thumbs up ${name}'s last text`]],
        ["love", [`give ${name}'s last message a heart`, `Love what ${name} sent me`, `put a heart on ${name}'s last text`]],
        ["laugh", [`put a laughing face on ${name}'s last text`, `Haha react to what ${name} sent me`]],
        ["thanks", [`send a thanks reaction to ${name}'s message`, `Thank what ${name} sent me`]],
      ] as const);
      const request = random.pick(forms);
      return {
        request,
        turns: [
          // The message's id is only in the chat: read it first, then react to the last one the person sent.
          () => call("read_messages", { with: name }),
          (observed) => {
            const chat = lastResult(observed)?.value as { messages?: Array<{ message_id: string; from: string }> } | undefined;
            const theirs = (chat?.messages ?? []).filter((message) => message.from !== "me").at(-1);
            return theirs === undefined ? answer(`${name} has not sent you a message I could react to.`) : call("react_to_message", { message_id: theirs.message_id, reaction });
          },
          (observed) => finalAnswer(observed, `Reacted to ${name}'s message.`),
        ],
      };
    },
  },
  {
    id: "day-agenda",
    kind: "single-call",
    tools: ["list_events"],
    build(random, clock) {
      if (random.next() < 0.25) {
        const request = random.pick(["what does my week look like?", "Show my calendar for the next 7 days", "anything on this week?", "what's on my schedule this week"]);
        return singleCall(request, "list_events", { from: clock.today, days: 7 }, "Your week:");
      }
      const offset = random.integer(0, 6);
      const date = clock.plusDays(offset);
      const day = dayWords(offset, date, clock);
      const request = random.pick([
        `do I have anything ${day}?`,
        `What's on my calendar ${day}?`,
        `am I busy ${day}`,
        `show my schedule for ${date}`,
        `what meetings do I have ${day}?`,
        `anything planned ${day}?`,
      ]);
      return singleCall(request, "list_events", { from: date, days: 1 }, `Your calendar ${day}:`);
    },
  },
  {
    id: "free-slot",
    kind: "single-call",
    tools: ["find_free_slot"],
    build(random, clock) {
      const minutes = random.pick([15, 30, 30, 45, 60, 90]);
      const length = minutes === 60 ? "an hour" : minutes === 90 ? "an hour and a half" : `${minutes} minutes`;
      const offset = random.integer(1, 5);
      const date = clock.plusDays(offset);
      const day = dayWords(offset, date, clock);
      const request = random.pick([
        `when am I free for ${length} ${day}?`,
        `Find me ${length} ${day} for a meeting`,
        `I need a ${minutes} minute slot ${day}, when's free?`,
        `is there time for a ${minutes}-minute call ${day}`,
      ]);
      return singleCall(request, "find_free_slot", { duration_minutes: minutes, date }, `Free slots for ${length}:`);
    },
  },
  {
    id: "find-event",
    kind: "single-call",
    tools: ["find_events"],
    build(random) {
      const [word, event] = random.pick(EVENT_WORDS);
      const request = random.pick([`when is ${event}?`, `When's ${event}`, `find ${event} in my calendar`, `what day is ${event} again?`]);
      return singleCall(request, "find_events", { query: word }, `Here is ${event}.`);
    },
  },
  {
    id: "search-tasks",
    kind: "single-call",
    tools: ["search_tasks"],
    build(random) {
      const [word, topic] = random.pick(TASK_WORDS);
      const request = random.pick([`do I have a task about ${topic}?`, `Is there a to-do for ${topic}?`, `search my tasks for ${word}`, `find my task about ${topic}`]);
      return singleCall(request, "search_tasks", { query: word }, `Tasks about ${topic}:`);
    },
  },
  {
    id: "complete-task",
    kind: "single-call",
    tools: ["complete_task"],
    build(random) {
      const [task, done] = random.pick(OPEN_TASKS);
      const request = random.pick([`${done}, the task is done`, `${done}, check it off my to-do list`, `mark the ${task} task as done`, `Done with ${task}, check it off my list`, `${done} — mark that task complete`]);
      return singleCall(request, "complete_task", { task }, "Marked as done.");
    },
  },
  {
    id: "task-list",
    kind: "single-call",
    tools: ["list_tasks"],
    build(random) {
      const list = random.pick(TASK_LISTS);
      const request = random.pick([`what's still open on my ${list.toLowerCase()} list?`, `Show my ${list} tasks`, `which ${list.toLowerCase()} to-dos are still open`]);
      return singleCall(request, "list_tasks", { list }, `Your open ${list} tasks:`);
    },
  },
  {
    id: "find-video",
    kind: "single-call",
    tools: ["search_videos"],
    build(random) {
      const kind = random.pick(["documentary", "movie", "series"] as const);
      const genre = random.pick(kind === "documentary" ? DOCUMENTARY_GENRES : kind === "movie" ? MOVIE_GENRES : SERIES_GENRES);
      const request = random.pick([
        `find me a ${genre} ${kind}`,
        `Any good ${genre} ${kind === "series" ? "series" : `${kind === "movie" ? "movies" : "documentaries"}`} to watch?`,
        `I want to watch a ${genre} ${kind} tonight, what's there?`,
        `look for a ${genre} ${kind}`,
      ]);
      return singleCall(request, "search_videos", { query: genre, kind }, `${capitalise(genre)} ${kind === "documentary" ? "documentaries" : kind === "movie" ? "movies" : "series"} you can watch:`);
    },
  },
  {
    id: "play-video",
    kind: "single-call",
    tools: ["play_video"],
    build(random) {
      const video = random.pick(VIDEO_LIBRARY);
      const request = random.pick([`put on ${video.title}`, `I want to watch ${video.title}`, `Start ${video.title}`, `play the ${video.kind} ${video.title}`, `let's watch ${video.title}`]);
      return singleCall(request, "play_video", { title: video.title }, `Playing ${video.title}.`);
    },
  },
  {
    id: "watch-later",
    kind: "single-call",
    tools: ["add_to_watch_list"],
    build(random) {
      const video = random.pick(VIDEO_LIBRARY.filter((candidate) => !SEEDED_WATCH_LIST.has(candidate.id)));
      const request = random.pick([`add ${video.title} to my watch list`, `Save ${video.title} to watch later`, `put ${video.title} on my list for later`]);
      return singleCall(request, "add_to_watch_list", { title: video.title }, `${video.title} is on your watch list.`);
    },
  },
  {
    id: "find-recipe",
    kind: "single-call",
    tools: ["search_recipes"],
    build(random) {
      const [query, dish] = random.pick([
        ["vegan", "a vegan dish"],
        ["soup", "a soup"],
        ["chicken", "something with chicken"],
        ["italian", "an Italian dish"],
        ["thai", "a Thai dish"],
        ["dessert", "a dessert"],
        ["chickpeas", "something with chickpeas"],
        ["mexican", "a Mexican dish"],
        ["breakfast", "a breakfast"],
        ["fish", "a fish dish"],
      ] as const);
      const quick = random.next() < 0.4;
      const request = quick
        ? random.pick([`find ${dish} I can make in 30 minutes`, `Any recipe for ${dish} under half an hour?`, `quick recipe for ${dish}, 30 min max`])
        : random.pick([`find me a recipe for ${dish}`, `What can I cook? I'd like ${dish}`, `search recipes: ${query}`, `got any recipes for ${dish}?`]);
      return singleCall(request, "search_recipes", { query, ...(quick ? { max_minutes: 30 } : {}) }, "Recipes you could make:");
    },
  },
  {
    id: "scale-recipe",
    kind: "single-call",
    tools: ["scale_recipe"],
    build(random) {
      const recipe = random.pick(RECIPE_BOOK);
      const servings = random.pick([2, 3, 4, 6, 8, 10, 12].filter((count) => count !== recipe.servings));
      const request = random.pick([
        `how much do I need to make ${recipe.name} for ${servings}?`,
        `Scale the ${recipe.name} recipe to ${servings} servings`,
        `I'm cooking ${recipe.name} for ${servings} people, what quantities?`,
        `${recipe.name} for ${servings} — ingredient amounts please`,
      ]);
      return singleCall(request, "scale_recipe", { recipe: recipe.name, servings }, `${recipe.name} for ${servings}:`);
    },
  },
  {
    id: "recipe-shopping",
    kind: "single-call",
    tools: ["add_recipe_to_shopping_list"],
    build(random) {
      const recipe = random.pick(RECIPE_BOOK);
      const servings = random.next() < 0.5 ? random.pick([2, 4, 6, 8].filter((count) => count !== recipe.servings)) : undefined;
      const forWhom = servings === undefined ? "" : ` for ${servings}`;
      const request = random.pick([
        `put the ingredients for ${recipe.name}${forWhom} on my shopping list`,
        `Add what I need for ${recipe.name}${forWhom} to the shopping list`,
        `I'm making ${recipe.name}${forWhom}, add the ingredients to my list`,
      ]);
      return singleCall(request, "add_recipe_to_shopping_list", { recipe: recipe.name, ...(servings !== undefined ? { servings } : {}) }, `The ingredients for ${recipe.name} are on your shopping list.`);
    },
  },
  {
    id: "directions",
    kind: "single-call",
    tools: ["get_directions"],
    build(random) {
      const place = random.pick(NEARBY_PLACES);
      const [mode, how] = random.pick([
        ["driving", "by car"],
        ["walking", "on foot"],
        ["transit", "by public transport"],
        ["cycling", "by bike"],
      ] as const);
      const fromWork = random.next() < 0.3;
      const start = fromWork ? " from work" : "";
      const request = random.pick([
        `how do I get to ${place.name}${start} ${how}?`,
        `Directions to ${place.name}${start}, ${how}`,
        `how long to get to ${place.name}${start} ${how}`,
        `route to ${place.name}${start} ${how} please`,
      ]);
      return singleCall(request, "get_directions", { ...(fromWork ? { from: "work" } : {}), to: place.name, mode }, `To ${place.name} ${how}:`);
    },
  },
  {
    id: "compare-travel",
    kind: "single-call",
    tools: ["compare_travel_times"],
    build(random) {
      const place = random.pick(NEARBY_PLACES);
      const request = random.pick([
        `compare travel times to ${place.name}`,
        `Compare driving, walking, transit and cycling to ${place.name}`,
        `${place.name}: is it quicker to walk, bike, drive or take the bus?`,
        `what's the best way to travel to ${place.name}, time-wise?`,
        `quickest way to ${place.name} from home?`,
      ]);
      return singleCall(request, "compare_travel_times", { to: place.name }, `Ways to get to ${place.name}:`);
    },
  },
  {
    id: "save-place",
    kind: "single-call",
    tools: ["save_place"],
    build(random) {
      const [label, placeId] = random.pick([
        ["market", "continente-colombo"],
        ["supermarket", "continente-colombo"],
        ["pharmacy", "farmacia-estacio"],
        ["cafe", "cafe-a-brasileira"],
        ["hospital", "hospital-santa-maria"],
        ["station", "santa-apolonia"],
        ["museum", "gulbenkian"],
        ["pastries", "pasteis-de-belem"],
      ] as const);
      const place = PLACES.find((candidate) => candidate.id === placeId)!;
      const request = random.pick([`save ${place.name} as my ${label}`, `save ${place.name} under ${label}`, `add ${place.name} to my saved places as ${label}`]);
      return singleCall(request, "save_place", { label, place: place.name }, `Saved ${place.name} as "${label}".`);
    },
  },
  {
    id: "find-place",
    kind: "single-call",
    tools: ["search_places"],
    build(random) {
      const [query, what] = random.pick([
        ["pharmacy", "a pharmacy"],
        ["supermarket", "a supermarket"],
        ["museum", "a museum"],
        ["cafe", "a café"],
        ["train station", "a train station"],
        ["fuel station", "a petrol station"],
        ["hospital", "a hospital"],
      ] as const);
      const request = random.pick([`find ${what} in Lisbon`, `Is there ${what} near me?`, `search the map for ${what}`, `I need ${what}, any around?`]);
      return singleCall(request, "search_places", { query }, `Here is what I found:`);
    },
  },
  {
    id: "spending",
    kind: "single-call",
    tools: ["list_transactions"],
    build(random) {
      const [category, words] = random.pick(SPENDING);
      const lastWeek = random.next() < 0.35;
      const request = lastWeek
        ? random.pick([`what did I spend on ${words} this past week?`, `Show my ${words} spending for the last 7 days`, `${words} transactions in the last week`])
        : random.pick([`what did I spend on ${words} lately?`, `Show my ${words} transactions`, `what have I spent on ${words} recently?`, `my ${words} payments lately?`]);
      return singleCall(request, "list_transactions", { category, ...(lastWeek ? { days: 7 } : {}) }, `Your ${words} spending:`);
    },
  },
  {
    id: "budget",
    kind: "single-call",
    tools: ["get_budget_status"],
    build(random) {
      const category = random.pick(BUDGETED);
      const request = random.pick([`how's my ${category} budget?`, `Am I over budget on ${category}?`, `how much is left in my ${category} budget this month`, `${category} budget status`]);
      return singleCall(request, "get_budget_status", { category }, `Your ${category} budget:`);
    },
  },
  {
    id: "brightness",
    kind: "single-call",
    tools: ["set_brightness"],
    build(random) {
      const level = random.pick([10, 20, 30, 40, 55, 60, 75, 90, 100]);
      const request = random.pick([
        `set the brightness to ${level}%`,
        `Screen brightness ${level}`,
        `${level < 50 ? "dim" : "brighten"} the screen to ${level} percent`,
        `make the display ${level}% bright`,
      ]);
      return singleCall(request, "set_brightness", { level }, `Brightness is at ${level}%.`);
    },
  },
  {
    id: "device-switch",
    kind: "single-call",
    tools: ["set_wifi", "set_bluetooth", "set_do_not_disturb", "set_airplane_mode"],
    build(random) {
      const [tool, name] = random.pick([
        ["set_wifi", "Wi-Fi"],
        ["set_bluetooth", "Bluetooth"],
        ["set_do_not_disturb", "do not disturb"],
        ["set_airplane_mode", "airplane mode"],
      ] as const);
      const on = random.next() < 0.5;
      const word = on ? "on" : "off";
      const request = random.pick([
        `turn ${name} ${word}`,
        `${capitalise(name)} ${word} please`,
        `switch ${word} ${name}`,
        `can you turn ${word} ${name}?`,
        on ? `enable ${name}` : `disable ${name}`,
      ]);
      return {
        ...singleCall(request, tool, { on }, `${capitalise(name)} is ${word}.`),
        // The demo phone has Wi-Fi and Bluetooth on, the others off: the request changes the switch it names.
        prepare: (profile) => runProfileTool(profile, tool, { on: !on }),
      };
    },
  },
  {
    id: "lock-car",
    kind: "single-call",
    tools: ["lock_car_doors"],
    build(random) {
      const [door, words] = random.pick([
        [undefined, "my car"],
        [undefined, "all the car doors"],
        ["driver", "the driver's door"],
        ["passenger", "the passenger door"],
      ] as const);
      const request = random.pick([`lock ${words}`, `Did I lock ${words}? Lock it`, `please lock ${words}`, `can you lock ${words} for me`]);
      return singleCall(request, "lock_car_doors", door === undefined ? {} : { door }, "Locked.");
    },
  },
  {
    id: "car-climate",
    kind: "single-call",
    tools: ["set_car_climate"],
    build(random) {
      const temperature = random.integer(17, 26);
      const request = random.pick([
        `set the car to ${temperature} degrees`,
        `Warm up the car to ${temperature}°C`,
        `car climate ${temperature} please`,
        `make it ${temperature} degrees in the car`,
      ]);
      return singleCall(request, "set_car_climate", { temperature }, `The car's climate is set to ${temperature} °C.`);
    },
  },
  {
    id: "find-product",
    kind: "single-call",
    tools: ["search_products"],
    build(random) {
      const [id, words, some] = random.pick(PRODUCTS);
      const price = product(id).price;
      const budget = random.next() < 0.35 ? Math.ceil(price / 10) * 10 + 10 : undefined;
      const request =
        budget === undefined
          ? random.pick([`does the shop have ${some}?`, `search the shop for ${words}`, `Find me ${some}`, `look up ${words} prices`])
          : random.pick([`find ${some} under ${budget} euros`, `Can I get ${some} for less than €${budget}?`]);
      return singleCall(request, "search_products", { query: words, ...(budget !== undefined ? { max_price: budget } : {}) }, "In the shop:");
    },
  },
  {
    id: "add-to-cart",
    kind: "single-call",
    tools: ["add_to_cart"],
    build(random) {
      const [id, words, some] = random.pick(PRODUCTS);
      const quantity = Math.min(product(id).stock, random.pick([1, 1, 2, 3]));
      const request =
        quantity === 1
          ? random.pick([`add ${some} to my cart`, `Put ${some} in the basket`, `${words} in the cart please`])
          : random.pick([`add ${quantity} of the ${words} to my cart`, `Put ${quantity} × ${words} in the cart`, `${quantity} ${words} in my cart please`]);
      return singleCall(request, "add_to_cart", { product: words, ...(quantity === 1 ? {} : { quantity }) }, `Added to your cart.`);
    },
  },
  {
    id: "search-email",
    kind: "single-call",
    tools: ["search_email"],
    build(random) {
      const [word, topic] = random.pick(EMAIL_WORDS);
      const request = random.pick([`find the email about ${topic}`, `Search my mail for ${word}`, `find mail that mentions ${topic}`, `email search: ${word}`, `did I get an email about ${topic}`]);
      return singleCall(request, "search_email", { query: word }, `Emails about ${topic}:`);
    },
  },
  {
    id: "read-email",
    kind: "check-then-act",
    tools: ["search_email", "read_email"],
    build(random) {
      const name = random.pick(EMAIL_SENDERS);
      const request = random.pick([`find ${name}'s email and read it to me`, `Open the latest email from ${name}`, `show me the mail ${name} sent`]);
      return {
        request,
        turns: [
          // An email is read by its id: find it first, then read the newest one that came from them.
          () => call("search_email", { query: name }),
          (observed) => {
            const found = lastResult(observed)?.value as { emails?: Array<{ id: string; folder: string }> } | undefined;
            const received = (found?.emails ?? []).find((email) => email.folder === "inbox");
            return received === undefined ? answer(`I found no email from ${name} in your inbox.`) : call("read_email", { email_id: received.id });
          },
          (observed) => finalAnswer(observed, `${name}'s email:`),
        ],
      };
    },
  },
  {
    id: "unread-email",
    kind: "single-call",
    tools: ["list_emails"],
    build(random) {
      const request = random.pick(["What's new in my inbox?", "do I have emails I haven't read", "anything unread in my inbox?", "which emails haven't I read yet", "show me the unread ones in my inbox"]);
      return singleCall(request, "list_emails", { unread_only: true }, "Your unread emails:");
    },
  },
  {
    id: "forecast",
    kind: "single-call",
    tools: ["get_weather_forecast"],
    build(random) {
      const city = random.pick(CITIES);
      const days = random.pick([3, 5, 7]);
      const request = random.pick([
        days === 7 ? `what's the weather in ${city} this week?` : `${city} forecast for the next ${days} days`,
        `How's the weather looking in ${city} over the next ${days} days?`,
        `${days}-day forecast for ${city}`,
        `will it rain in ${city} in the coming ${days} days?`,
      ]);
      return singleCall(request, "get_weather_forecast", { place: city, days }, `The next ${days} days in ${city}:`);
    },
  },
  {
    id: "weather-how-cold",
    kind: "single-call",
    tools: ["get_weather"],
    build(random, clock) {
      const city = random.pick(CITIES);
      const offset = random.pick([0, 1, 1, 2, 3]);
      const date = clock.plusDays(offset);
      const day = dayWords(offset, date, clock);
      const request = random.pick([
        `how cold will it be in ${city} ${day}?`,
        `How hot is it going to be in ${city} ${day}?`,
        `temperature in ${city} ${day}?`,
        `what's the high in ${city} ${day}`,
        `do I need a jacket in ${city} ${day}?`,
      ]);
      return singleCall(request, "get_weather", { place: city, date }, `In ${city} ${day}:`);
    },
  },
  {
    id: "headlines",
    kind: "single-call",
    tools: ["get_headlines"],
    build(random) {
      const topic = random.pick(NEWS_TOPICS);
      const words = random.pick(TOPIC_WORDS[topic]);
      const request = random.pick([`what's new in ${words}?`, `${capitalise(words)} news please`, `Give me the latest ${words} headlines`, `any ${words} news today`]);
      return singleCall(request, "get_headlines", { topic }, `The latest ${words} news:`);
    },
  },
  {
    id: "search-news",
    kind: "single-call",
    tools: ["search_news"],
    build(random) {
      const [query, topic] = random.pick(NEWS_WORDS);
      const request = random.pick([`any news about ${topic}?`, `Search the news for ${query}`, `what's the latest on ${topic}`, `find news stories about ${topic}`]);
      return singleCall(request, "search_news", { query }, `News about ${topic}:`);
    },
  },
  {
    id: "contact-details",
    kind: "single-call",
    tools: ["find_contact"],
    build(random) {
      const name = random.pick(FIRST_NAMES);
      const request = random.pick([`what's ${name}'s number?`, `Give me ${name}'s email address`,  `look up ${name} in my contacts`]);
      return singleCall(request, "find_contact", { query: name }, `${name}'s details:`);
    },
  },
  {
    id: "message-short",
    kind: "single-call",
    tools: ["send_message"],
    build(random) {
      const name = random.pick(FIRST_NAMES);
      const text = random.pick(SHORT_TEXTS);
      const request = random.pick([`message ${name}: ${text}`, `msg ${name} - ${text}`, `text ${name} ${text}`, `${name}: ${text} (send it)`, `tell ${name}: ${text}`]);
      return singleCall(request, "send_message", { to: name, text }, `Sent to ${name}.`);
    },
  },
];

/**
 * The turns of a recovery that finishes the task: the call; when it failed
 * with `code`, the fix its error names; the same call again; an answer that
 * says what was fixed and what was done. Never the same failing call twice.
 */
function fixThenFinish(
  first: () => ScriptedReply,
  code: string,
  fix: (failed: ObservedResult) => ScriptedReply,
  done: string,
  fixedAndDone: string,
): PlannedTurn[] {
  return [
    first,
    (observed) => {
      const last = lastResult(observed);
      if (last !== undefined && !last.ok && last.error?.code === code) return fix(last);
      return finalAnswer(observed, done);
    },
    first,
    (observed) => finalAnswer(observed, fixedAndDone),
  ];
}

/** Wi-Fi and mobile data off: the phone is offline. */
async function goOffline(profile: Profile): Promise<void> {
  await runProfileTool(profile, "set_wifi", { on: false });
  await runProfileTool(profile, "set_mobile_data", { on: false });
}

export const COMPLETION_RECIPES: readonly Recipe[] = [
  {
    id: "message-after-wifi",
    kind: "recovery",
    tools: ["send_message", "set_wifi"],
    build(random) {
      const name = random.pick(FIRST_NAMES);
      const text = random.pick(SHORT_TEXTS);
      const request = random.pick([`text ${name}: ${text}`, `send ${name} "${text}"`, `message ${name}: ${text}`]);
      return {
        request,
        prepare: goOffline,
        turns: fixThenFinish(() => call("send_message", { to: name, text }), "wifi_off", () => call("set_wifi", { on: true }), `Sent to ${name}.`, `Wi-Fi was off, so I turned it on and sent your message to ${name}.`),
      };
    },
  },
  {
    id: "message-after-sign-in",
    kind: "recovery",
    tools: ["send_message", "sign_in"],
    build(random) {
      const name = random.pick(FIRST_NAMES);
      const text = random.pick(SHORT_TEXTS);
      const request = random.pick([`text ${name} ${text}`, `Send a message to ${name}: ${text}`, `tell ${name} "${text}"`]);
      return {
        request,
        prepare: (profile) => runProfileTool(profile, "sign_out", {}),
        turns: fixThenFinish(() => call("send_message", { to: name, text }), "signed_out", () => call("sign_in", {}), `Sent to ${name}.`, `You were signed out of Messages, so I signed you in and sent the message to ${name}.`),
      };
    },
  },
  {
    id: "message-after-freeing-space",
    kind: "recovery",
    tools: ["send_message", "delete_message"],
    build(random) {
      const name = random.pick(FIRST_NAMES);
      const text = random.pick(SHORT_TEXTS);
      const request = random.pick([`message ${name}: ${text}`, `Text ${name}: ${text}`, `send ${name} a text: ${text}`]);
      return {
        request,
        // The message storage holds exactly what the demo has: the next message does not fit.
        prepare: async (profile) => {
          await profile.store.action({ tool: "tune:fill-message-storage", args: {} }, (tx) => writeAccount(tx, { ...readAccount(tx), capacity: messagesCollection(tx).all().length }));
        },
        turns: fixThenFinish(
          () => call("send_message", { to: name, text }),
          "storage_full",
          // The error names the oldest message to delete; without a name there is nothing safe to delete.
          (failed) => {
            const oldest = /delete_message\(message_id="([^"]+)"\)/.exec(failed.error?.message ?? "")?.[1];
            return oldest === undefined ? finalAnswer([failed], "") : call("delete_message", { message_id: oldest });
          },
          `Sent to ${name}.`,
          `The message storage was full, so I deleted the oldest message and sent yours to ${name}.`,
        ),
      };
    },
  },
  {
    id: "email-after-airplane-mode",
    kind: "recovery",
    tools: ["send_email", "set_airplane_mode"],
    build(random) {
      const name = random.pick(FIRST_NAMES);
      const [subject, body] = random.pick(EMAIL_NOTES);
      const request = random.pick([
        `email ${name}: ${body}`,
        `Send ${name} an email with the subject "${subject}" saying: ${body}`,
        `mail ${name} about "${subject}": ${body}`,
      ]);
      return {
        request,
        prepare: (profile) => runProfileTool(profile, "set_airplane_mode", { on: true }),
        turns: fixThenFinish(
          () => call("send_email", { to: name, subject, body }),
          "airplane_mode",
          () => call("set_airplane_mode", { on: false }),
          `Emailed ${name}.`,
          `Airplane mode was on, so I turned it off and sent the email to ${name}.`,
        ),
      };
    },
  },
  {
    id: "headlines-after-wifi",
    kind: "recovery",
    tools: ["get_headlines", "set_wifi"],
    build(random) {
      const topic = random.pick(NEWS_TOPICS);
      const words = random.pick(TOPIC_WORDS[topic]);
      const request = random.pick([`what's new in ${words}?`, `${capitalise(words)} headlines please`, `show me the ${words} news`]);
      return {
        request,
        prepare: goOffline,
        turns: fixThenFinish(() => call("get_headlines", { topic }), "wifi_off", () => call("set_wifi", { on: true }), `The latest ${words} news:`, `Wi-Fi was off, so I turned it on. The latest ${words} news:`),
      };
    },
  },
  {
    id: "engine-after-brake",
    kind: "recovery",
    tools: ["start_engine", "press_brake_pedal"],
    build(random) {
      const request = random.pick(["Start the engine please", "can you start my car?", "get the engine running", "start my car, I'm heading out"]);
      return {
        request,
        // Doors locked, as the engine also needs: the brake is what is left to fix.
        prepare: (profile) => runProfileTool(profile, "lock_car_doors", {}),
        turns: fixThenFinish(() => call("start_engine", {}), "brake_not_pressed", () => call("press_brake_pedal", {}), "The engine is running.", "The brake pedal was not pressed, so I pressed it and started the engine."),
      };
    },
  },
  {
    id: "fuel-after-engine-stop",
    kind: "recovery",
    tools: ["add_fuel", "stop_engine"],
    build(random) {
      const gallons = random.pick([5, 8, 10, 12, 15, 20, 25, 30]);
      const request = random.pick([`put ${gallons} gallons in the car`, `Add ${gallons} gallons of fuel`, `refuel: ${gallons} gallons`, `fill ${gallons} gallons into the tank`]);
      return {
        request,
        // The car is running: it cannot take fuel until the engine stops.
        prepare: async (profile) => {
          await runProfileTool(profile, "lock_car_doors", {});
          await runProfileTool(profile, "press_brake_pedal", {});
          await runProfileTool(profile, "start_engine", {});
        },
        turns: fixThenFinish(() => call("add_fuel", { gallons }), "engine_running", () => call("stop_engine", {}), `Added ${gallons} gallons.`, `The engine was running, so I stopped it and added ${gallons} gallons.`),
      };
    },
  },
];
