import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { requireConnectivity } from "../device/connectivity.js";
import { resolveContact as resolveStoredContact, type Contact } from "../messages/contacts.js";
import { instantOf } from "../time.js";
import { capped, findByName, itemsMatching, matchesWords, referenceFix, referenceHint } from "../shared.js";
import { addDays, clockOf, localDate, parsePastDay } from "../time.js";

export const PHOTOS_APP = "photos";

export interface Photo {
  id: string;
  /** ISO instant. */
  takenAt: string;
  place: string;
  city: string;
  tags: string[];
  people: string[];
  caption: string;
}

export interface Album {
  id: string;
  name: string;
  photoIds: string[];
}

export interface Share {
  id: string;
  to: string;
  email: string;
  what: string;
  photoIds: string[];
  at: string;
}

const photos = (tx: StoreTransaction) => tx.collection<Photo>(PHOTOS_APP, "photos");
const albums = (tx: StoreTransaction) => tx.collection<Album>(PHOTOS_APP, "albums");
const shares = (tx: StoreTransaction) => tx.collection<Share>(PHOTOS_APP, "shares");

const MAX_SHARE = 50;

function photoResult(photo: Photo, timeZone: string) {
  return { id: photo.id, date: localDate(new Date(photo.takenAt), timeZone), place: `${photo.place}, ${photo.city}`, tags: photo.tags, people: photo.people, caption: photo.caption };
}

function findPhoto(tx: StoreTransaction, id: string, parameter = "photo_id"): Photo {
  const photo = photos(tx).get(id.trim().toLowerCase());
  if (photo === undefined) {
    const matching = itemsMatching(photos(tx).all(), id, (candidate) => [candidate.place, candidate.city, candidate.caption, ...candidate.tags, ...candidate.people].join(" ")).map((candidate) => candidate.id);
    const list = parameter.endsWith("s");
    throw new ToolError(
      "photo_not_found",
      `No photo "${id}".${matching.length > 0 ? referenceHint(matching, parameter, { list }) : " Find photo ids with search_photos."}`,
      // A fix replaces a whole argument: one id in a list is not one.
      list ? undefined : referenceFix(matching, parameter),
    );
  }
  return photo;
}

function findAlbum(tx: StoreTransaction, query: string): Album {
  return findByName(albums(tx).all(), query, { what: "album", id: (album) => album.id, name: (album) => album.name, listTool: "list_photo_albums" });
}

/** A contact from the contacts app (the persona's when that app holds none); people outside it cannot be sent to. */
function resolveContact(tx: StoreTransaction, query: string): Contact & { email: string } {
  const contact = resolveStoredContact(tx, query, "contact");
  if (contact.email === undefined) {
    throw new ToolError("contact_without_email", `${contact.name} has no email address to send photos to. Add one in the contacts app, then retry.`);
  }
  return { ...contact, email: contact.email };
}

function recordShare(tx: StoreTransaction, contact: Contact & { email: string }, what: string, photoIds: string[], at: Date): Share {
  const id = shares(tx).nextId("share");
  const share: Share = { id, to: contact.name, email: contact.email, what, photoIds, at: at.toISOString() };
  shares(tx).put(id, share);
  return share;
}

/** The full name of a contact, so "Maria" finds photos of "Maria Lopez"; other text is matched as written. */
function personName(tx: StoreTransaction, query: string): string {
  try {
    return resolveStoredContact(tx, query, "person").name;
  } catch (error) {
    if (error instanceof ToolError) return query;
    throw error;
  }
}

const searchPhotos = defineTool({
  name: "search_photos",
  description: "Find photos by day, place, tag (beach, food, family…), person or album. Newest first.",
  input: z.object({
    date: z.string().optional().describe('A day, e.g. "yesterday", "Saturday" or "2026-11-28"'),
    place: z.string().optional().describe('A place or city, e.g. "Sintra"'),
    tag: z.string().optional().describe('A tag, e.g. "beach"'),
    person: z.string().optional().describe('Someone in the photo, e.g. "Maria"'),
    album: z.string().optional().describe('An album, e.g. "Porto weekend"'),
  }),
  risk: "read",
  run: ({ date, place, tag, person, album }, context) => {
    const day = date === undefined ? undefined : parsePastDay(date, clockOf(context), "date");
    const inAlbum = album === undefined ? undefined : new Set(findAlbum(context.store, album).photoIds);
    const who = person === undefined ? undefined : personName(context.store, person);
    const found = photos(context.store)
      .all()
      .filter(
        (photo) =>
          (day === undefined || localDate(new Date(photo.takenAt), context.timeZone) === day) &&
          (place === undefined || matchesWords(`${photo.place} ${photo.city}`, place)) &&
          (tag === undefined || photo.tags.some((candidate) => matchesWords(candidate, tag))) &&
          (who === undefined || photo.people.some((candidate) => matchesWords(candidate, who))) &&
          (inAlbum === undefined || inAlbum.has(photo.id)),
      )
      .sort((a, b) => b.takenAt.localeCompare(a.takenAt));
    const list = capped(found, 12);
    return {
      date: day,
      count: found.length,
      photos: list.items.map((photo) => photoResult(photo, context.timeZone)),
      more: list.more,
      hint: found.length === 0 ? "No photos match. Try fewer filters, another day or a broader place such as a city." : undefined,
    };
  },
});

const listPhotoAlbums = defineTool({
  name: "list_photo_albums",
  description: "List your photo albums.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => ({ albums: albums(context.store).all().map((album) => ({ id: album.id, name: album.name, photos: album.photoIds.length })) }),
});

const createPhotoAlbum = defineTool({
  name: "create_photo_album",
  description: "Create a photo album, optionally with photos in it.",
  input: z.object({
    name: z.string().min(1).max(60).describe('Album name, e.g. "Christmas 2026"'),
    photo_ids: z.array(z.string()).max(200).optional().describe('Photos to put in it, e.g. ["photo-3"]'),
  }),
  risk: "write",
  run: ({ name, photo_ids }, context) => {
    const clean = name.trim();
    if (clean === "") throw new ToolError("invalid_argument", 'name is empty. Give the album a name such as "Christmas 2026".');
    if (albums(context.store).find((album) => album.name.toLowerCase() === clean.toLowerCase()).length > 0) {
      throw new ToolError("album_exists", `An album named "${clean}" already exists. Add photos to it with add_photos_to_album.`);
    }
    const photoIds = [...new Set((photo_ids ?? []).map((id) => findPhoto(context.store, id, "photo_ids").id))];
    const id = albums(context.store).nextId("album");
    albums(context.store).put(id, { id, name: clean, photoIds });
    return { created: clean, id, photos: photoIds.length };
  },
});

const addPhotosToAlbum = defineTool({
  name: "add_photos_to_album",
  description: "Add photos to one of your albums.",
  input: z.object({
    album: z.string().describe('Album name, e.g. "Porto weekend"'),
    photo_ids: z.array(z.string()).min(1).max(200).describe('Photo ids from search_photos, e.g. ["photo-3", "photo-4"]'),
  }),
  risk: "write",
  run: ({ album: query, photo_ids }, context) => {
    const album = findAlbum(context.store, query);
    const ids = photo_ids.map((id) => findPhoto(context.store, id, "photo_ids").id);
    const added = ids.filter((id) => !album.photoIds.includes(id));
    if (added.length === 0) throw new ToolError("already_in_album", `Those photos are already in "${album.name}". Nothing to do.`);
    albums(context.store).put(album.id, { ...album, photoIds: [...album.photoIds, ...new Set(added)] });
    return { album: album.name, added: [...new Set(added)], photos: album.photoIds.length + new Set(added).size };
  },
});

const tagPhoto = defineTool({
  name: "tag_photo",
  description: "Add a tag to a photo so you can find it later.",
  input: z.object({
    photo_id: z.string().describe('Photo id, e.g. "photo-3"'),
    tag: z.string().min(1).max(30).describe('Tag, e.g. "birthday"'),
  }),
  risk: "write",
  run: ({ photo_id, tag }, context) => {
    const photo = findPhoto(context.store, photo_id);
    const clean = tag.trim().toLowerCase();
    if (clean === "") throw new ToolError("invalid_argument", 'tag is empty. Give a word such as "birthday".');
    if (photo.tags.includes(clean)) throw new ToolError("already_tagged", `${photo.id} is already tagged "${clean}".`);
    photos(context.store).put(photo.id, { ...photo, tags: [...photo.tags, clean] });
    return { photo: photo.id, tags: [...photo.tags, clean] };
  },
});

const sharePhoto = defineTool({
  name: "share_photo",
  description: "Send a photo to a contact.",
  input: z.object({
    photo_id: z.string().describe('Photo id from search_photos, e.g. "photo-3"'),
    contact: z.string().describe('Who gets it, e.g. "Maria"'),
  }),
  risk: "send",
  run: ({ photo_id, contact: who }, context) => {
    const photo = findPhoto(context.store, photo_id);
    const contact = resolveContact(context.store, who);
    requireConnectivity(context.store, `share the photo with ${contact.name}`);
    const share = recordShare(context.store, contact, `photo ${photo.id}`, [photo.id], context.now());
    return { shared: photo.id, with: contact.name, email: contact.email, share_id: share.id };
  },
  describe: ({ photo_id, contact }) => `Send photo ${photo_id} to ${contact}.`,
});

const sharePhotoAlbum = defineTool({
  name: "share_photo_album",
  description: "Send a whole photo album to a contact.",
  input: z.object({
    album: z.string().describe('Album name, e.g. "Porto weekend"'),
    contact: z.string().describe('Who gets it, e.g. "Ana"'),
  }),
  risk: "send",
  run: ({ album: query, contact: who }, context) => {
    const album = findAlbum(context.store, query);
    const contact = resolveContact(context.store, who);
    if (album.photoIds.length === 0) throw new ToolError("album_empty", `"${album.name}" has no photos. Add some with add_photos_to_album first.`);
    if (album.photoIds.length > MAX_SHARE) {
      throw new ToolError("too_many_photos", `"${album.name}" has ${album.photoIds.length} photos; at most ${MAX_SHARE} can be shared at once. Share a smaller album.`);
    }
    requireConnectivity(context.store, `share the album with ${contact.name}`);
    const share = recordShare(context.store, contact, `album ${album.name}`, album.photoIds, context.now());
    return { shared: album.name, photos: album.photoIds.length, with: contact.name, email: contact.email, share_id: share.id };
  },
  describe: ({ album, contact }) => `Send the album "${album}" to ${contact}.`,
});

/** Outings of the demo persona: days back, local time, place, city, tags, people, captions. */
const OUTINGS: [number, string, string, string, string[], string[], string[]][] = [
  [2, "13:10", "Time Out Market", "Lisbon", ["food", "friends"], ["Maria Lopez"], ["Lunch with Maria", "Custard tarts", "Market hall"]],
  [4, "17:45", "Belém Tower", "Lisbon", ["sunset", "landmark"], [], ["Sunset at Belém", "The tower from the river", "Golden light"]],
  [9, "11:30", "Pena Palace", "Sintra", ["landmark", "hiking", "family"], ["Ana Rivera"], ["Pena Palace", "Ana on the terrace", "Forest trail", "View to the coast"]],
  [10, "16:00", "Praia do Guincho", "Cascais", ["beach", "family"], ["Ana Rivera", "Mom"], ["Guincho waves", "Mom and Ana", "Kites on the beach"]],
  [16, "20:30", "Home", "Lisbon", ["birthday", "family", "food"], ["Mom", "Ana Rivera"], ["Mom's birthday cake", "Candles", "Family dinner"]],
  [23, "10:15", "Ribeira", "Porto", ["landmark", "travel"], ["Jules Martin"], ["Dom Luís bridge", "Ribeira houses", "Jules by the river", "Rabelo boats"]],
  [24, "19:40", "Port cellars", "Porto", ["food", "travel"], ["Jules Martin"], ["Port tasting", "Cellar barrels"]],
  [31, "09:05", "Avenida da Liberdade 110", "Lisbon", ["work", "team"], ["Frank Miller", "Priya Shah", "Lena Vogel"], ["Team offsite", "Whiteboard plan"]],
  [38, "15:20", "Oceanário de Lisboa", "Lisbon", ["animals", "friends"], ["Tom Becker"], ["Sunfish", "Sea otters", "The big tank"]],
  [45, "18:00", "Miradouro da Senhora do Monte", "Lisbon", ["sunset", "city"], [], ["City at dusk", "Castle view", "Tram 28 passing"]],
  [60, "12:00", "Praia da Comporta", "Comporta", ["beach", "friends"], ["Maria Lopez", "Jules Martin"], ["Comporta dunes", "Beach picnic"]],
];

export const photosApp: App = {
  name: PHOTOS_APP,
  group: "life",
  title: "Photos",
  description: "Your photos: search by day, place, tag or person; albums; share with contacts.",
  tools: [searchPhotos, listPhotoAlbums, createPhotoAlbum, addPhotosToAlbum, tagPhoto, sharePhoto, sharePhotoAlbum],
  seed(tx, environment) {
    const today = localDate(environment.now(), environment.timeZone);
    const byOuting: string[][] = [];
    for (const [daysBack, time, place, city, tags, people, captions] of OUTINGS) {
      const date = addDays(today, -daysBack);
      const ids: string[] = [];
      captions.forEach((caption, index) => {
        const id = photos(tx).nextId("photo");
        const takenAt = new Date(instantOf(date, time, environment.timeZone).getTime() + index * 7 * 60_000).toISOString();
        photos(tx).put(id, { id, takenAt, place, city, tags, people: index === 0 || people.length === 0 ? people : people.slice(0, 1), caption });
        ids.push(id);
      });
      byOuting.push(ids);
    }
    const albumSeeds: [string, number[]][] = [
      ["Porto weekend", [5, 6]],
      ["Family", [2, 3, 4]],
      ["Sunsets", [1, 9]],
    ];
    for (const [name, outings] of albumSeeds) {
      const id = albums(tx).nextId("album");
      albums(tx).put(id, { id, name, photoIds: outings.flatMap((index) => byOuting[index] ?? []) });
    }
  },
  view(tx, environment) {
    const all = photos(tx)
      .all()
      .sort((a, b) => b.takenAt.localeCompare(a.takenAt));
    const allAlbums = albums(tx).all();
    const recentShares = shares(tx).all().slice(-5);
    const days = new Map<string, Photo[]>();
    for (const photo of all.slice(0, 20)) {
      const day = localDate(new Date(photo.takenAt), environment.timeZone);
      days.set(day, [...(days.get(day) ?? []), photo]);
    }
    const text = [
      `${all.length} photos, ${allAlbums.length} albums`,
      "Albums:",
      ...allAlbums.map((album) => `  ${album.name} (${album.photoIds.length})`),
      "Recent:",
      ...[...days.entries()].map(([day, list]) => `  ${day}  ${list[0]!.place}, ${list[0]!.city}: ${list.map((photo) => photo.caption).join("; ")}`),
      ...(recentShares.length > 0 ? ["Shared:", ...recentShares.map((share) => `  ${share.what} → ${share.to}`)] : []),
    ].join("\n");
    return {
      text,
      data: {
        photoCount: all.length,
        albums: allAlbums.map((album) => ({ id: album.id, name: album.name, photos: album.photoIds.length })),
        recent: all.slice(0, 20).map((photo) => photoResult(photo, environment.timeZone)),
        shares: recentShares,
      },
    };
  },
};
