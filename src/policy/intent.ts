/**
 * Whether the user's own words ask for an action. After the agent has read
 * content written by someone else, a side-effecting call the user never asked
 * for (turning do-not-disturb on while summarising an email) is the signature
 * of an injection that carries no planted value — nothing for provenance to
 * trace — so the gate asks about it.
 *
 * The request must ask for the ACT, not only name its topic: "tell me about my
 * car" is no request to unlock it. So the test is on the verb of the tool's
 * name (`unlock` of `unlock_car_doors`), or a verb of the same family
 * ("text" for `send_message`, "remove" for `delete_file`); a generic verb
 * (`set_`, `update_`, `create_`) needs a verb of its family AND a word of what
 * it acts on ("turn the wifi off" for `set_wifi`).
 */

/** Verb families: a request word of the family asks for a tool whose name begins with any member. */
const VERB_FAMILIES: readonly (readonly string[])[] = [
  ["send", "text", "message", "email", "mail", "reply", "respond", "answer", "forward", "notify", "ping", "write", "dm"],
  ["delete", "remove", "erase", "trash", "discard", "clear", "empty", "wipe", "purge", "get rid", "cancel", "drop", "archive"],
  ["create", "add", "new", "make", "schedule", "save", "note", "put", "record", "log", "write", "set up", "book", "plan", "remember"],
  ["update", "edit", "change", "modify", "rename", "move", "reschedule", "fix", "correct", "replace", "adjust", "set", "mark", "complete", "finish", "tick", "save", "store", "add"],
  ["set", "turn", "switch", "enable", "disable", "activate", "deactivate", "toggle", "mute", "unmute", "silence", "change", "put", "raise", "lower", "increase", "decrease", "adjust"],
  ["pay", "transfer", "send money", "wire", "settle", "tip", "donate"],
  ["buy", "purchase", "order", "checkout", "check out", "get me", "pay"],
  ["book", "reserve"],
  ["share", "invite", "send", "give access"],
  ["unshare", "revoke", "stop sharing"],
  ["unlock"],
  ["lock", "secure"],
  ["start", "begin", "launch", "run"],
  ["stop", "end", "halt", "kill", "turn off"],
  ["play", "put on", "listen", "watch"],
  ["pause", "hold"],
  ["forward", "send"],
  ["sign", "log"],
  ["return", "send back", "refund"],
];

/** Verbs of tool names that only say "change something": they need the thing named as well. */
const GENERIC_VERBS = new Set(["set", "update", "create", "add", "make", "change", "edit", "get", "save", "remove", "move", "copy", "export", "import", "log"]);

/** Words of a tool's name that name no object (articles, prepositions, and the verbs above). */
const FILLER_WORDS = new Set(["the", "and", "for", "to", "of", "on", "off", "do", "not", "my", "from", "with", "all", "one", "item", "in", "into", "new", "list"]);

/** The words of `text`, lower-cased, accents removed, hyphenated words also joined ("wi-fi" gives wifi, wi, fi). */
function words(text: string): string[] {
  const plain = text.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  const split = (value: string): string[] => value.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "");
  return [...split(plain), ...split(plain.replace(/(\p{L})[-‐](?=\p{L})/gu, "$1"))];
}

/** The verb and the object words of a tool (`unlock_car_doors` in app car → unlock; car, doors). */
export function actionWords(toolName: string, app: string | undefined): { verb: string; objects: string[] } {
  const parts = toolName.toLowerCase().split(/_+/).filter((part) => part !== "");
  const verb = parts[0] ?? "";
  const objects = [...parts.slice(1), ...(app === undefined ? [] : [app.toLowerCase()])].filter(
    (word) => word.length >= 3 && !FILLER_WORDS.has(word),
  );
  return { verb, objects: [...new Set(objects)] };
}

/**
 * A word said in the request, or an inflected form of it ("booking" for
 * "book", "deleting" for "delete"): the word less a final "e", followed by at
 * most four letters, so "transfer" is not found in "translate".
 */
function said(spoken: readonly string[], text: string, word: string): boolean {
  if (word.includes(" ")) return ` ${spoken.join(" ")} `.includes(` ${word} `) || text.includes(word);
  if (word.length <= 3) return spoken.some((candidate) => candidate === word || candidate === `${word}s` || candidate === `${word}ed` || candidate === `${word}ing`);
  const stem = word.replace(/e$/, "");
  return spoken.some((candidate) => candidate.startsWith(stem) && candidate.length <= stem.length + 4);
}

/** The request words that may ask for a tool whose name begins with `verb`: the verb and its families. */
function verbFormsOf(verb: string): string[] {
  const forms = new Set([verb]);
  for (const family of VERB_FAMILIES) if (family.includes(verb)) for (const member of family) forms.add(member);
  return [...forms];
}

/** "tell me", "show me": the user asks to be told, which asks for no act on anyone else. */
const TELL_ME = /\btell (me|us)\b/g;

/**
 * Words that are nouns as often as verbs ("read my messages", "the text of the
 * file", "my order"): they ask for the act only where a verb stands, at the
 * start of a clause ("text Maria…", "…and email Bob", "can you note…") or
 * after "to" ("I want to order…").
 */
const NOUN_LIKE = new Set([
  "text", "message", "email", "mail", "note", "record", "log", "order", "answer", "return", "play", "watch", "lock", "clear", "empty", "new", "hold", "end", "run",
  "reply", "post", "plan", "drop", "put", "mark", "tip", "change", "write", "set", "trash", "archive", "pay", "transfer", "schedule", "start", "stop", "wire", "purchase",
]);

/** Lead-ins before an imperative verb: "please", "can you", "I'd like you to". */
const LEAD_IN = /^(?:(?:please|pls|kindly|also|just|now|then|and|so|ok|okay|hey|could|can|would|will|you|i|i'd|id|like|want|need|to|go|ahead|me|let's|lets)\s+)*/;

/** The first word of each clause, and every word after "to": where a verb stands in a request. */
function verbPositions(text: string): Set<string> {
  const found = new Set<string>();
  for (const clause of text.split(/[.,;:!?\n()]+|\s(?:and|then|but|or)\s/)) {
    const rest = clause.trim().replace(LEAD_IN, "");
    const first = words(rest)[0];
    if (first !== undefined) found.add(first);
  }
  for (const match of text.matchAll(/\bto\s+([\p{L}]+)/gu)) found.add(match[1]!);
  return found;
}

/** True when the user's words ask for the action of `toolName`, not only mention its topic. */
export function requestMentionsAction(userText: string, toolName: string, app: string | undefined): boolean {
  const text = userText.toLowerCase().replace(TELL_ME, " ");
  const spoken = words(text);
  const { verb, objects } = actionWords(toolName, app);
  if (verb === "") return false;
  const positions = [...verbPositions(text)];
  const verbAsked = verbFormsOf(verb).some((form) => (NOUN_LIKE.has(form) ? said(positions, text, form) : said(spoken, text, form)));
  if (!verbAsked) return false;
  if (!GENERIC_VERBS.has(verb)) return true;
  return objects.some((object) => said(spoken, text, object));
}
