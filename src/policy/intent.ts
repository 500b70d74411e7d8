/**
 * Whether the user's own words ask for a kind of action at all. After the
 * agent has read content written by someone else, a side-effecting call the
 * user never mentioned (turning do-not-disturb on while summarising an email)
 * is the signature of an injection that carries no planted value — nothing
 * for provenance to trace — so the gate asks about it.
 *
 * The test is deliberately loose: a word of the tool's name or its app in
 * the request is enough ("book" covers book_hotel, "wifi" covers set_wifi).
 */
const GENERIC_WORDS = new Set(["set", "get", "add", "the", "and", "for", "to", "of", "on", "off", "do", "not", "my", "list", "make", "new", "from", "with", "all", "one", "item", "change"]);

/** The words of `text`, hyphenated ones both joined and apart ("wi-fi" gives wifi, wi, fi). */
function words(text: string): string[] {
  const plain = text.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  const split = (value: string): string[] => value.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "");
  return [...split(plain), ...split(plain.replace(/(\p{L})[-‐](?=\p{L})/gu, "$1"))];
}

/** Words of a tool's name and app that say what it does (`book_hotel` → book, hotel). */
export function actionWords(toolName: string, app: string | undefined): string[] {
  const found = [...toolName.split(/_+/), ...(app === undefined ? [] : [app])].map((word) => word.toLowerCase());
  return [...new Set(found.filter((word) => word.length >= 3 && !GENERIC_WORDS.has(word)))];
}

/** True when the user's words name the action: one of its words, or a longer form of it ("booking" for "book"). */
export function requestMentionsAction(userText: string, toolName: string, app: string | undefined): boolean {
  const said = words(userText);
  return actionWords(toolName, app).some((word) => {
    const stem = word.length > 5 ? word.slice(0, 5) : word;
    return said.some((candidate) => candidate.startsWith(stem));
  });
}
