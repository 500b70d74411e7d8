import type { SeededRandom } from "./random.js";
import type { Recipe } from "./recipes.js";
import { FIND_TOOLS_NAME } from "../tools/find-tools.js";
import { answer, call } from "./replies.js";
import { CITIES, FIRST_NAMES } from "./vocabulary.js";

/**
 * Requests the right move for is a plain answer with no call, while the
 * ToolBox still offers its subset of tools. Three families, so that "no tool
 * fits" is learnt from many shapes rather than a few memorised sentences:
 *
 * - out of scope: actions no botpsy app does (takeaway, taxis, smart-home
 *   devices, printing, trading, medicine, legal papers, translation, writing);
 * - general knowledge and arithmetic, answered from what the model knows
 *   (what a tool-calling model meets when it is offered unrelated functions);
 * - near misses: the request is about the topic of a real tool, which cannot
 *   do what is asked (the forecast tool has no past weather; there is
 *   messaging but no fax). Each reply says what can't be done and, where true,
 *   what botpsy can do instead.
 *
 * Requests are composed from parts (a phrasing, a value, an opening or an
 * ending); the router forces a call on some of them, and the builder drops
 * those, as inference would never let the model answer there.
 */

/** A request and its honest reply, drawn from parts. */
type Topic = (random: SeededRandom) => { request: string; reply: string };

const QUESTION_START = /^(what's|whats|what|how|who's|who|which|where|is|was|are|do|does|i|\d+)\b/i;

/** Openings and endings a person adds around a request: lowercase, polite, terse; a question keeps its question form. */
function framed(random: SeededRandom, request: string): string {
  const lowered = `${request.charAt(0).toLowerCase()}${request.slice(1)}`;
  if (QUESTION_START.test(request) || request.endsWith("?")) {
    const opening = random.pick(["", "", "", "hey, "]);
    const ending = request.endsWith("?") ? "" : random.pick(["", "", "?"]);
    return `${opening === "" ? request : `${opening}${lowered}`}${ending}`;
  }
  const opening = random.pick(["", "", "", "please ", "hey, ", "can you ", "could you "]);
  const asks = opening === "can you " || opening === "could you ";
  const endings = ["", "", asks ? "?" : "", opening === "please " ? "" : " please", /\bme\b/.test(request) ? "" : " for me"];
  const body = opening === "" ? request : `${opening}${lowered}`;
  return `${body}${body.endsWith("?") ? "" : random.pick(endings)}`;
}

const DISHES = ["pizza", "sushi", "pad thai", "a burger and fries", "ramen", "a chicken curry", "tacos", "a kebab"];
const RIDE_DESTINATIONS = ["the airport", "the train station", "the office", "my sister's place", "the city centre", "the stadium"];
const HOME_DEVICES: ReadonlyArray<readonly [string, string]> = [
  ["dim the bedroom lamps to half", "the lamps"],
  ["switch the heating up to 21 degrees", "the heating"],
  ["start the robot vacuum in the kitchen", "the robot vacuum"],
  ["open the garage door", "the garage door"],
  ["start the washing machine on the quick cycle", "the washing machine"],
  ["switch the kettle on", "the kettle"],
  ["close the living room blinds", "the blinds"],
];
const PRINTABLES = ["my boarding pass", "the holiday photos", "two copies of the invoice", "this week's meeting notes", "the concert tickets"];
const INVESTMENTS = ["10 shares of Apple", "some Tesla stock", "5 shares of Nvidia", "200 euros of bitcoin", "an index fund"];
const SYMPTOMS = ["a headache", "a sore throat", "back pain", "a rash on my arm", "a fever", "a cough that won't go away"];
const LEGAL_PAPERS = ["my will", "a rental contract for my flat", "a divorce agreement", "an NDA for my business", "a power of attorney"];
const PHRASES = ["good night", "where is the train station", "thank you very much", "I'm allergic to nuts", "how much does this cost", "see you tomorrow"];
const LANGUAGES = ["Italian", "Japanese", "German", "Greek", "Korean", "Dutch", "Polish"];
const WRITINGS = ["a poem about the sea", "an essay on climate change", "a wedding speech for my brother", "a cover letter for a design job", "a bedtime story about a dragon", "song lyrics about summer"];

const OUT_OF_SCOPE: readonly Topic[] = [
  (random) => {
    const dish = random.pick(DISHES);
    return {
      request: framed(random, random.pick([`order ${dish} to my door`, `get ${dish} delivered for dinner`, `I want ${dish} from a takeaway tonight`, `have ${dish} brought over from a restaurant`])),
      reply: "I can't order takeaway or restaurant food: none of my apps does that. I can look for a recipe in your recipe book, or put groceries on your shopping list instead.",
    };
  },
  (random) => {
    const destination = random.pick(RIDE_DESTINATIONS);
    return {
      request: framed(random, random.pick([`call a taxi to ${destination}`, `get me an uber to ${destination}`, `book a ride to ${destination}`, `i need a cab to ${destination} in ten minutes`])),
      reply: `I can't book taxis or rides. I can give you directions to ${destination} by transit, walking or driving instead.`,
    };
  },
  (random) => {
    const [action, device] = random.pick(HOME_DEVICES);
    return {
      request: framed(random, action),
      reply: `I can't control ${device}: botpsy has no app for smart-home devices. I can set a timer or add a task to remind you instead.`,
    };
  },
  (random) => {
    const thing = random.pick(PRINTABLES);
    return {
      request: framed(random, random.pick([`print ${thing}`, `send ${thing} to the printer`, `print out ${thing}`])),
      reply: "I can't print: none of my apps can reach a printer. I can email it or share it with someone instead.",
    };
  },
  (random) => {
    const investment = random.pick(INVESTMENTS);
    return {
      request: framed(random, random.pick([`buy ${investment}`, `invest in ${investment} for me`, `sell ${investment}`])),
      reply: "I can't trade stocks or crypto. The finance app shows your balances and transactions, moves money, pays bills and sets budgets, nothing more.",
    };
  },
  (random) => {
    const symptom = random.pick(SYMPTOMS);
    return {
      request: framed(random, random.pick([`diagnose ${symptom}`, `what medicine should I take for ${symptom}`, `I have ${symptom}, what's wrong with me`, `is ${symptom} something serious`])),
      reply: `I can't diagnose ${symptom} or recommend medicine: please ask a doctor or a pharmacist. I can put an appointment in your calendar once you have one.`,
    };
  },
  (random) => {
    const paper = random.pick(LEGAL_PAPERS);
    return {
      request: framed(random, random.pick([`write up ${paper} that's legally valid`, `check ${paper} for legal problems`, `prepare ${paper}`])),
      reply: "I can't prepare or check legal documents: that needs a lawyer. I can keep your own notes on it in a document if that helps.",
    };
  },
  (random) => {
    const phrase = random.pick(PHRASES);
    const language = random.pick(LANGUAGES);
    return {
      request: framed(random, random.pick([`translate "${phrase}" into ${language}`, `how do you say ${phrase} in ${language}`, `"${phrase}" in ${language.toLowerCase()}?`])),
      reply: `I have no translation tool, so I can't give you a reliable ${language} translation.`,
    };
  },
  (random) => {
    const writing = random.pick(WRITINGS);
    return {
      request: framed(random, random.pick([`write me ${writing}`, `compose ${writing}`, `i need ${writing}, write it`])),
      reply: "I can't write that for you: I'm here to act through your apps. If you write it, I can save it as a note or send it to someone.",
    };
  },
  (random) => ({
    request: framed(random, random.pick(["tell me a joke", "tell me something funny", "got any good jokes?", "cheer me up with a joke"])),
    reply: "Jokes aren't my thing: I'm here to get things done in your apps, like messages, your calendar, music and more.",
  }),
  (random) => ({
    request: framed(random, random.pick(["renew my passport online", "apply for a visa to the US", "register me to vote", "renew my driving licence"])),
    reply: "I can't do that: none of my apps handles passports, visas or other government services.",
  }),
];

const CAPITALS: ReadonlyArray<readonly [string, string]> = [
  ["France", "Paris"],
  ["Japan", "Tokyo"],
  ["Canada", "Ottawa"],
  ["Australia", "Canberra"],
  ["Brazil", "Brasília"],
  ["Kenya", "Nairobi"],
  ["Norway", "Oslo"],
  ["Egypt", "Cairo"],
  ["Argentina", "Buenos Aires"],
  ["South Korea", "Seoul"],
  ["Poland", "Warsaw"],
  ["Peru", "Lima"],
  ["Turkey", "Ankara"],
  ["Vietnam", "Hanoi"],
  ["Morocco", "Rabat"],
  ["New Zealand", "Wellington"],
];
const FACTS: ReadonlyArray<readonly [readonly string[], string]> = [
  [["how far is the Moon from Earth", "distance from the earth to the moon?", "how far away is the moon"], "The Moon is about 384,400 km from Earth on average."],
  [["who wrote Don Quixote", "who's the author of don quixote?"], "Don Quixote was written by Miguel de Cervantes."],
  [["how many planets are in the solar system", "how many planets are there"], "There are eight planets in the solar system."],
  [["what's the boiling point of water in Fahrenheit", "water boils at how many degrees fahrenheit"], "Water boils at 212 °F (100 °C) at sea level."],
  [["what's the tallest mountain in the world", "which mountain is the highest on earth"], "Mount Everest, at about 8,849 m."],
  [["number of bones in the human body?", "how many bones are in a human skeleton"], "An adult human has 206 bones."],
  [["who painted the Mona Lisa", "who did the mona lisa painting"], "Leonardo da Vinci painted the Mona Lisa."],
  [["what's the largest ocean", "which ocean is the biggest"], "The Pacific is the largest ocean."],
  [["what's the chemical symbol for gold", "gold's symbol on the periodic table?"], "The chemical symbol for gold is Au."],
  [["how many continents are there", "number of continents?"], "There are seven continents."],
  [["how fast is the speed of light", "what's the speed of light in km per second"], "Light travels at about 299,792 km per second."],
];
/** Unit conversions: factor from the first unit to the second. */
const CONVERSIONS: ReadonlyArray<readonly [string, string, number]> = [
  ["miles", "km", 1.609344],
  ["km", "miles", 1 / 1.609344],
  ["kg", "pounds", 2.2046226],
  ["pounds", "kg", 0.45359237],
  ["inches", "cm", 2.54],
  ["feet", "metres", 0.3048],
  ["litres", "US gallons", 1 / 3.785411784],
];

function rounded(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0$/, "").replace(/\.0$/, "");
}

const KNOWLEDGE: readonly Topic[] = [
  (random) => {
    const [country, capital] = random.pick(CAPITALS);
    return {
      request: framed(random, random.pick([`what's the capital of ${country}`, `capital of ${country}?`, `which city is the capital of ${country}`, `whats the captial of ${country}`])),
      reply: `The capital of ${country} is ${capital}.`,
    };
  },
  (random) => {
    const [questions, reply] = random.pick(FACTS);
    return { request: framed(random, random.pick(questions)), reply };
  },
  (random) => {
    const [from, to, factor] = random.pick(CONVERSIONS);
    const amount = random.pick([2, 3, 5, 8, 10, 12, 15, 20, 26, 42, 100]);
    return {
      request: framed(random, random.pick([`convert ${amount} ${from} to ${to}`, `how many ${to} are ${amount} ${from}`, `${amount} ${from} in ${to}?`])),
      reply: `${amount} ${from} is about ${rounded(amount * factor)} ${to}.`,
    };
  },
  (random) => {
    const celsius = random.pick([-5, 0, 12, 18, 25, 30, 37, 40]);
    return {
      request: framed(random, random.pick([`convert ${celsius}°C to °F`, `${celsius} degrees c to f?`, `what is ${celsius}°C in °F`])),
      reply: `${celsius} °C is ${rounded((celsius * 9) / 5 + 32)} °F.`,
    };
  },
  (random) => {
    const left = random.integer(12, 99);
    const right = random.integer(3, 48);
    const [request, reply] = random.pick([
      [`what's ${left} x ${right}`, `${left} × ${right} = ${left * right}.`],
      [`${left} multiplied by ${right}?`, `${left} × ${right} = ${left * right}.`],
      [`what's ${left} + ${right * 7}`, `${left} + ${right * 7} = ${left + right * 7}.`],
      [`what is ${left * right} divided by ${right}`, `${left * right} ÷ ${right} = ${left}.`],
      [`what's ${right}% of ${left * 10}`, `${right}% of ${left * 10} is ${rounded((right * left * 10) / 100)}.`],
    ] as const);
    return { request: framed(random, request), reply };
  },
];

const BODIES = ["Mars", "the Moon", "Jupiter", "Venus"];
const MONTHS = ["January", "March", "April", "July", "August", "October", "December"];
const TIMES = ["6", "6:30", "7", "7:15", "8"];

const NEAR_MISSES: readonly Topic[] = [
  // get_weather and get_weather_forecast forecast from today to 14 days ahead; there is no past weather.
  (random) => {
    const city = random.pick(CITIES);
    const month = random.pick(MONTHS);
    return {
      request: framed(random, random.pick([`how hot was it in ${city} last summer`, `was it rainy in ${city} last ${month}`, `how cold was ${city} in ${month} last year`])),
      reply: `I can only get forecasts from today to two weeks ahead, not past weather, so I can't tell you what it was like in ${city} then.`,
    };
  },
  // The weather tools take a city name on Earth.
  (random) => {
    const body = random.pick(BODIES);
    return {
      request: framed(random, random.pick([`is it windy on ${body}`, `how cold does it get on ${body} at night`, `what's the forecast for ${body} tomorrow`])),
      reply: `My weather app only forecasts cities on Earth, so I can't tell you the weather on ${body}.`,
    };
  },
  // send_email sends email with attachments and send_message chat messages; nothing sends a fax.
  (random) => {
    const paper = random.pick(["the signed lease", "my tax form", "the contract", "the invoice", "the insurance claim"]);
    const to = random.pick(["my lawyer", "the accountant", "the insurance company", random.pick(FIRST_NAMES)]);
    return {
      request: framed(random, random.pick([`fax ${paper} to ${to}`, `send ${paper} to ${to} by fax`])),
      reply: "I can't send faxes. I can email it as an attachment instead, if you tell me which file and who to send it to.",
    };
  },
  // Messages is a chat app: no voice or video calls.
  (random) => {
    const name = random.pick(FIRST_NAMES);
    return {
      request: framed(random, random.pick([`ring ${name} on the phone`, `start a video call with ${name}`, `give ${name} a ring`, `phone ${name} for me`])),
      reply: `I can't make phone or video calls. I can send ${name} a message instead.`,
    };
  },
  // The finance tools: balances, transactions, transfers, bills, budgets. No accounts opened or closed, no credit.
  (random) => ({
    request: framed(random, random.pick(["open a new credit card for me", "raise my credit card limit", "apply for a mortgage", "what's my credit score", "get me a personal loan of 5000 euros"])),
    reply: "I can't do that: the finance app shows balances and transactions, moves money, pays bills and sets budgets, but it can't open or close accounts or arrange credit. Your bank can help with that.",
  }),
  // set_alarm sets an alarm on this phone only.
  (random) => {
    const name = random.pick(FIRST_NAMES);
    const time = random.pick(TIMES);
    return {
      request: framed(random, random.pick([`put an alarm on ${name}'s phone for ${time}`, `wake ${name} up tomorrow at ${time} using their phone`])),
      reply: `I can only set alarms on this phone, not on ${name}'s. I can send ${name} a message to remind them, or set an alarm for ${time} here.`,
    };
  },
  // start_timer counts down a set length; there is no stopwatch.
  (random) => ({
    request: framed(random, random.pick(["time how long my run takes, like a stopwatch", "count up from zero while I run", "use a stopwatch to time my lap", "measure how long this takes, stopwatch style"])),
    reply: "I don't have a stopwatch, only countdown timers. I can start a timer for a set length, or log your run as a workout afterwards.",
  }),
  // The phone settings botpsy can change are those of get_device_status.
  (random) => {
    const [request, thing] = random.pick([
      ["switch the flashlight on for a minute", "the flashlight"],
      ["share my internet with my laptop as a hotspot", "the hotspot"],
      ["switch the display to dark mode", "dark mode"],
    ] as const);
    return {
      request: framed(random, request),
      reply: `I can't control ${thing}. The settings I can change are Wi-Fi, Bluetooth, mobile data, airplane mode, do-not-disturb, volume, brightness and battery saver.`,
    };
  },
  // The car tools: status, fuel, doors, brake, engine, climate, tyre pressure, range. No garage, no maintenance.
  (random) => ({
    request: framed(random, random.pick(["book the car in for a service at the garage", "change the car's oil", "book an MOT for the car"])),
    reply: "I can't book garages or do maintenance. I can check the car's status, fuel, tyre pressure and range.",
  }),
  // The travel app books flights and hotels only.
  (random) => {
    const city = random.pick(CITIES);
    const [request, reply] = random.pick([
      [`book a train ticket to ${city}`, "I can only book flights and hotels, not trains. I can look for flights instead."],
      [`book a ferry crossing to ${city}`, "I can only book flights and hotels, not ferries. I can look for flights instead."],
      [`rent a car in ${city} next week`, "I can't rent cars: the travel app books flights and hotels only."],
      ["pick a window seat on my flight", "I can't choose seats or check you in: I can only search, book and cancel flights and hotels."],
    ] as const);
    return { request: framed(random, request), reply };
  },
  // The music app plays its own library; nothing downloads or sells tickets.
  (random) => {
    const [request, reply] = random.pick([
      ["download this album as mp3", "I can't download music: I can only play, queue and organise the songs in your music library."],
      ["buy concert tickets for Coldplay", "I can't buy concert tickets: none of my apps sells them."],
      ["buy tickets for the jazz festival", "I can't buy event tickets: none of my apps sells them."],
    ] as const);
    return { request: framed(random, request), reply };
  },
  // The photos app finds, tags, groups and shares photos; no editing or printing.
  (random) => ({
    request: framed(random, random.pick(["print the holiday photos", "crop the photo from the party", "brighten the pictures from last weekend"])),
    reply: "I can't edit or print photos. I can find them, tag them, put them in albums or share them with someone.",
  }),
  // The fitness app tracks workouts, steps and goals.
  (random) => {
    const [request, thing] = random.pick([
      ["what's my heart rate right now", "your heart rate"],
      ["how did I sleep last night", "your sleep"],
      ["measure my blood pressure", "your blood pressure"],
    ] as const);
    return {
      request: framed(random, request),
      reply: `I can't measure ${thing}: the fitness app tracks workouts, steps and goals only.`,
    };
  },
  // Contacts and messages have no blocking; do-not-disturb silences calls.
  (random) => ({
    request: framed(random, random.pick(["block the number that keeps calling me", "block calls from unknown numbers", "stop that spam caller from reaching me"])),
    reply: "I can't block numbers: none of my apps can. I can turn on do-not-disturb to silence calls, if that helps.",
  }),
  // The news app reads headlines and saves articles; it takes no subscriptions.
  (random) => ({
    request: framed(random, random.pick(["subscribe me to the Guardian", "sign me up for the newspaper's newsletter", "cancel my magazine subscription"])),
    reply: "I can't manage subscriptions. I can show you the headlines and save articles to read later.",
  }),
];

function abstention(id: string, topics: readonly Topic[], weight: number): Recipe {
  return {
    id,
    kind: "abstention",
    tools: [],
    weight,
    build(random) {
      const { request, reply } = random.pick(topics)(random);
      return { request, turns: [() => answer(reply)] };
    },
  };
}

/** Words of a request that say nothing of what is wanted (for a search query). */
const FILLER = new Set(["please", "hey", "can", "could", "you", "for", "me", "i", "my", "the", "a", "an", "to", "want", "need", "some", "this", "that", "it"]);

/** What a person would type into `find_tools` for a request: its content words, at most five. */
export function searchQueryOf(request: string): string {
  const words = request
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, " ")
    .split(/\s+/)
    .filter((word) => word !== "" && !FILLER.has(word));
  return words.slice(0, 5).join(" ");
}

/**
 * The model searches with `find_tools` first (as it may when nothing offered
 * fits), reads what the search found (tools on the same topic: the phone's
 * brightness for a lamp, a timer for a stopwatch) and still answers in words,
 * because none of them does what was asked.
 */
function searchedAbstention(id: string, topics: readonly Topic[], weight: number): Recipe {
  return {
    id,
    kind: "abstention",
    tools: [FIND_TOOLS_NAME],
    weight,
    build(random) {
      const { request, reply } = random.pick(topics)(random);
      return { request, turns: [() => call(FIND_TOOLS_NAME, { query: searchQueryOf(request) }), () => answer(reply)] };
    },
  };
}

export const ABSTENTION_RECIPES: readonly Recipe[] = [
  abstention("out-of-scope", OUT_OF_SCOPE, 3),
  abstention("general-knowledge", KNOWLEDGE, 3),
  abstention("near-miss", NEAR_MISSES, 5),
  searchedAbstention("searched-no-fit", [...OUT_OF_SCOPE, ...NEAR_MISSES], 2),
];
