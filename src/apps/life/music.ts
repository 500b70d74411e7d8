import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { capped, findByName, looseEnum, looseNumber, matchesWords } from "../shared.js";

export const MUSIC_APP = "music";

export interface Track {
  id: string;
  title: string;
  artist: string;
  album: string;
  genre: string;
  year: number;
  seconds: number;
}

export interface Playlist {
  id: string;
  name: string;
  trackIds: string[];
}

export interface Player {
  state: "playing" | "paused" | "stopped";
  trackId: string | undefined;
  /** Tracks to play after the current one, in order. */
  queue: string[];
  /** The music player's own volume, 0..100 (the device volume is a setting of its own). */
  volume: number;
  /** What is playing: "album Blue Hours", "playlist Running"… */
  source: string | undefined;
}

/** A library of twelve albums, five tracks each. */
const ALBUMS: { artist: string; album: string; genre: string; year: number; titles: string[] }[] = [
  { artist: "Maré Alta", album: "Blue Hours", genre: "fado", year: 2019, titles: ["Lisboa ao Amanhecer", "Saudade Lenta", "Rua do Sol", "Barco Negro Novo", "Última Luz"] },
  { artist: "The Tidewater", album: "Harbour Lights", genre: "indie", year: 2021, titles: ["Harbour Lights", "Paper Boats", "Low Tide", "Lighthouse Keeper", "Salt and Rust"] },
  { artist: "Luna Avenue", album: "Neon Gardens", genre: "pop", year: 2023, titles: ["Neon Gardens", "Midnight Call", "Golden Hour", "Satellite Hearts", "Run With Me"] },
  { artist: "Kofi & The Lanterns", album: "Warm Engines", genre: "soul", year: 2018, titles: ["Warm Engines", "Sunday Kitchen", "Slow Burn", "Come Home Early", "Honey Light"] },
  { artist: "Northern Static", album: "Signal Lost", genre: "electronic", year: 2022, titles: ["Signal Lost", "Data Rain", "Cold Circuit", "Afterglow", "Overpass"] },
  { artist: "Elena Sousa Trio", album: "Quiet Rooms", genre: "jazz", year: 2017, titles: ["Quiet Rooms", "Blue Tram 28", "Late Espresso", "Alfama Waltz", "Rain on Glass"] },
  { artist: "Red Canyon", album: "Dust Roads", genre: "rock", year: 2016, titles: ["Dust Roads", "Highway Nine", "Broken Compass", "Desert Radio", "Thunder Mile"] },
  { artist: "Ana Flor", album: "Jardim", genre: "bossa nova", year: 2020, titles: ["Jardim", "Tarde Azul", "Beira-Mar", "Café Pequeno", "Flor de Sal"] },
  { artist: "Pulse Theory", album: "Cardio", genre: "electronic", year: 2024, titles: ["Warm Up", "Interval", "Tempo Run", "Hill Sprint", "Cool Down"] },
  { artist: "Vienna Strings", album: "Morning Classics", genre: "classical", year: 2015, titles: ["Spring Allegro", "Adagio in G", "Morning Nocturne", "Little Serenade", "Canon for Strings"] },
  { artist: "MC Ribeira", album: "Calçada", genre: "hip hop", year: 2022, titles: ["Calçada", "Eléctrico", "Sete Colinas", "Noite na Baixa", "Miradouro"] },
  { artist: "Sleepy Owl", album: "Lo-fi Study", genre: "lo-fi", year: 2023, titles: ["Desk Lamp", "Pages", "Rainy Window", "Tea Break", "Deadline Drift"] },
];

export const MUSIC_LIBRARY: readonly Track[] = ALBUMS.flatMap((album, albumIndex) =>
  album.titles.map((title, index) => ({
    id: `t${albumIndex + 1}-${index + 1}`,
    title,
    artist: album.artist,
    album: album.album,
    genre: album.genre,
    year: album.year,
    seconds: 150 + ((albumIndex * 37 + index * 53) % 150),
  })),
);

const playlists = (tx: StoreTransaction) => tx.collection<Playlist>(MUSIC_APP, "playlists");
const playerRecord = (tx: StoreTransaction) => tx.collection<Player>(MUSIC_APP, "player");

function readPlayer(tx: StoreTransaction): Player {
  return playerRecord(tx).get("player") ?? { state: "stopped", trackId: undefined, queue: [], volume: 50, source: undefined };
}

function writePlayer(tx: StoreTransaction, player: Player): void {
  playerRecord(tx).put("player", player);
}

function trackById(id: string): Track {
  const track = MUSIC_LIBRARY.find((candidate) => candidate.id === id);
  if (track === undefined) throw new ToolError("not_found", `Track ${id} is not in the library.`);
  return track;
}

function findTrack(query: string): Track {
  return findByName(MUSIC_LIBRARY, query, {
    what: "track",
    id: (track) => track.id,
    name: (track) => `${track.title} - ${track.artist}`,
    listTool: "search_music",
  });
}

function findPlaylist(tx: StoreTransaction, query: string): Playlist {
  return findByName(playlists(tx).all(), query, { what: "playlist", id: (list) => list.id, name: (list) => list.name, listTool: "list_playlists" });
}

const trackResult = (track: Track) => ({ id: track.id, title: track.title, artist: track.artist, album: track.album });

function nowPlaying(player: Player) {
  const track = player.trackId === undefined ? undefined : trackById(player.trackId);
  return {
    state: player.state,
    track: track === undefined ? undefined : trackResult(track),
    source: player.source,
    up_next: player.queue.slice(0, 5).map((id) => trackById(id).title),
    queued: player.queue.length,
    volume: player.volume,
  };
}

const searchMusic = defineTool({
  name: "search_music",
  description: "Search the music library by song title, artist, album or genre.",
  input: z.object({
    query: z.string().describe('Words to look for, e.g. "Luna Avenue" or "jazz"'),
    kind: looseEnum(["any", "track", "artist", "album", "genre"] as const).optional().describe('"track", "artist", "album", "genre" or "any" (default)'),
  }),
  risk: "read",
  run: ({ query, kind }) => {
    const field = (track: Track): string => {
      switch (kind) {
        case "track":
          return track.title;
        case "artist":
          return track.artist;
        case "album":
          return track.album;
        case "genre":
          return track.genre;
        default:
          return `${track.title} ${track.artist} ${track.album} ${track.genre}`;
      }
    };
    const found = MUSIC_LIBRARY.filter((track) => matchesWords(field(track), query));
    if (found.length === 0) throw new ToolError("no_results", `Nothing in the library matches "${query}". Try an artist, an album or a genre such as "jazz".`);
    const list = capped(found, 10);
    return { tracks: list.items.map(trackResult), more: list.more, albums: [...new Set(found.map((track) => `${track.album} (${track.artist})`))].slice(0, 5) };
  },
});

const playMusic = defineTool({
  name: "play_music",
  description: "Play a song, an album, an artist, a genre or one of your playlists. With nothing named, resumes or plays the library.",
  input: z.object({
    query: z.string().optional().describe('What to play, e.g. "Harbour Lights", "Luna Avenue" or "Running"'),
    shuffle: z.boolean().optional().describe("true to shuffle"),
  }),
  risk: "write",
  run: ({ query, shuffle }, context) => {
    const player = readPlayer(context.store);
    let tracks: Track[];
    let source: string;
    if (query === undefined || query.trim() === "") {
      tracks = [...MUSIC_LIBRARY];
      source = "library";
    } else {
      const wanted = query.trim().toLowerCase();
      const playlist = playlists(context.store).find((list) => list.name.toLowerCase() === wanted || list.id === wanted)[0];
      const byArtist = MUSIC_LIBRARY.filter((track) => track.artist.toLowerCase() === wanted);
      const byAlbum = MUSIC_LIBRARY.filter((track) => track.album.toLowerCase() === wanted);
      const byGenre = MUSIC_LIBRARY.filter((track) => track.genre === wanted);
      const byTitle = MUSIC_LIBRARY.filter((track) => track.title.toLowerCase() === wanted);
      if (playlist !== undefined) {
        if (playlist.trackIds.length === 0) {
          throw new ToolError("playlist_empty", `The playlist "${playlist.name}" is empty. Add songs with add_to_playlist first.`);
        }
        tracks = playlist.trackIds.map(trackById);
        source = `playlist ${playlist.name}`;
      } else if (byAlbum.length > 0) {
        // An album named like its title song plays whole: it starts with that song anyway.
        tracks = byAlbum;
        source = `album ${byAlbum[0]!.album}`;
      } else if (byArtist.length > 0) {
        tracks = byArtist;
        source = `artist ${byArtist[0]!.artist}`;
      } else if (byTitle.length > 0) {
        tracks = [byTitle[0]!];
        source = `song ${byTitle[0]!.title}`;
      } else if (byGenre.length > 0) {
        tracks = byGenre;
        source = `genre ${wanted}`;
      } else {
        const track = findTrack(query);
        tracks = [track];
        source = `song ${track.title}`;
      }
    }
    if (shuffle === true) {
      // A fixed rotation rather than a random shuffle, so that runs repeat exactly.
      const offset = Math.floor(tracks.length / 2);
      tracks = [...tracks.slice(offset), ...tracks.slice(0, offset)].reverse();
    }
    const [first, ...rest] = tracks;
    const next: Player = { ...player, state: "playing", trackId: first!.id, queue: rest.map((track) => track.id), source };
    writePlayer(context.store, next);
    return nowPlaying(next);
  },
});

const pauseMusic = defineTool({
  name: "pause_music",
  description: "Pause the music that is playing.",
  input: z.object({}),
  risk: "write",
  run: (_args, context) => {
    const player = readPlayer(context.store);
    if (player.state !== "playing") throw new ToolError("not_playing", "No music is playing, so there is nothing to pause.");
    const next: Player = { ...player, state: "paused" };
    writePlayer(context.store, next);
    return nowPlaying(next);
  },
});

const resumeMusic = defineTool({
  name: "resume_music",
  description: "Resume paused music.",
  input: z.object({}),
  risk: "write",
  run: (_args, context) => {
    const player = readPlayer(context.store);
    if (player.state === "playing") throw new ToolError("already_playing", "Music is already playing. Nothing to do.");
    if (player.trackId === undefined) throw new ToolError("nothing_to_resume", "Nothing was playing. Start something with play_music(query=...).");
    const next: Player = { ...player, state: "playing" };
    writePlayer(context.store, next);
    return nowPlaying(next);
  },
});

const skipTrack = defineTool({
  name: "skip_track",
  description: "Skip to the next song in the queue.",
  input: z.object({ count: looseNumber(z.number().int().min(1).max(50)).optional().describe("How many songs to skip (default 1)") }),
  risk: "write",
  run: ({ count }, context) => {
    const player = readPlayer(context.store);
    if (player.trackId === undefined) throw new ToolError("not_playing", "Nothing is playing. Start something with play_music first.");
    const steps = count ?? 1;
    if (player.queue.length < steps) {
      throw new ToolError(
        "queue_empty",
        player.queue.length === 0
          ? "There is no next song in the queue. Add one with queue_track or play something else with play_music."
          : `Only ${player.queue.length} song(s) are queued. Skip ${player.queue.length} or fewer.`,
      );
    }
    const next: Player = { ...player, state: "playing", trackId: player.queue[steps - 1], queue: player.queue.slice(steps) };
    writePlayer(context.store, next);
    return nowPlaying(next);
  },
});

const queueTrack = defineTool({
  name: "queue_track",
  description: "Add a song to play next, or at the end of the queue.",
  input: z.object({
    track: z.string().describe('Song title, e.g. "Golden Hour"'),
    next: z.boolean().optional().describe("true to play it right after the current song"),
  }),
  risk: "write",
  run: ({ track: query, next: playNext }, context) => {
    const track = findTrack(query);
    const player = readPlayer(context.store);
    if (player.queue.length >= 200) throw new ToolError("queue_full", "The queue holds at most 200 songs. Skip or play something new first.");
    const queue = playNext === true ? [track.id, ...player.queue] : [...player.queue, track.id];
    const updated: Player = player.trackId === undefined ? { ...player, trackId: track.id, state: "paused", source: "queue" } : { ...player, queue };
    writePlayer(context.store, updated);
    return { ...nowPlaying(updated), added: trackResult(track), position: player.trackId === undefined ? 0 : playNext === true ? 1 : queue.length };
  },
});

const getNowPlaying = defineTool({
  name: "get_now_playing",
  description: "Say what music is playing now and what is next.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => nowPlaying(readPlayer(context.store)),
});

const setMusicVolume = defineTool({
  name: "set_music_volume",
  description: "Set the music player's volume from 0 to 100.",
  input: z.object({ level: looseNumber(z.number().int().min(0).max(100)).describe("Volume 0-100, e.g. 40") }),
  risk: "write",
  run: ({ level }, context) => {
    const player = readPlayer(context.store);
    writePlayer(context.store, { ...player, volume: level });
    return { volume: level, previous: player.volume };
  },
});

const listPlaylists = defineTool({
  name: "list_playlists",
  description: "List your playlists, or the songs of one playlist.",
  input: z.object({ playlist: z.string().optional().describe('A playlist to show, e.g. "Running"') }),
  risk: "read",
  run: ({ playlist }, context) => {
    if (playlist !== undefined) {
      const found = findPlaylist(context.store, playlist);
      const list = capped(found.trackIds.map(trackById), 25);
      return { playlist: found.name, tracks: list.items.map(trackResult), more: list.more };
    }
    return { playlists: playlists(context.store).all().map((list) => ({ id: list.id, name: list.name, tracks: list.trackIds.length })) };
  },
});

const createPlaylist = defineTool({
  name: "create_playlist",
  description: "Create a new, empty playlist (or one with the given songs).",
  input: z.object({
    name: z.string().min(1).max(60).describe('Playlist name, e.g. "Road trip"'),
    tracks: z.array(z.string()).max(50).optional().describe('Songs to put in it, e.g. ["Golden Hour"]'),
  }),
  risk: "write",
  run: ({ name, tracks }, context) => {
    const clean = name.trim();
    if (clean === "") throw new ToolError("invalid_argument", 'name is empty. Give the playlist a name such as "Road trip".');
    if (playlists(context.store).find((list) => list.name.toLowerCase() === clean.toLowerCase()).length > 0) {
      throw new ToolError("playlist_exists", `A playlist named "${clean}" already exists. Add songs to it with add_to_playlist, or pick another name.`);
    }
    const trackIds = [...new Set((tracks ?? []).map((query) => findTrack(query).id))];
    const id = playlists(context.store).nextId("playlist");
    playlists(context.store).put(id, { id, name: clean, trackIds });
    return { created: clean, id, tracks: trackIds.map((trackId) => trackById(trackId).title) };
  },
});

const addToPlaylist = defineTool({
  name: "add_to_playlist",
  description: "Add a song to one of your playlists.",
  input: z.object({
    playlist: z.string().describe('Playlist name, e.g. "Running"'),
    track: z.string().describe('Song title, e.g. "Golden Hour"'),
  }),
  risk: "write",
  run: ({ playlist, track: query }, context) => {
    const list = findPlaylist(context.store, playlist);
    const track = findTrack(query);
    if (list.trackIds.includes(track.id)) throw new ToolError("already_in_playlist", `"${track.title}" is already in "${list.name}". Nothing to do.`);
    if (list.trackIds.length >= 500) throw new ToolError("playlist_full", `"${list.name}" holds the maximum of 500 songs. Remove some first.`);
    playlists(context.store).put(list.id, { ...list, trackIds: [...list.trackIds, track.id] });
    return { playlist: list.name, added: trackResult(track), tracks: list.trackIds.length + 1 };
  },
});

const removeFromPlaylist = defineTool({
  name: "remove_from_playlist",
  description: "Remove a song from one of your playlists.",
  input: z.object({
    playlist: z.string().describe('Playlist name, e.g. "Running"'),
    track: z.string().describe('Song title, e.g. "Golden Hour"'),
  }),
  risk: "write",
  run: ({ playlist, track: query }, context) => {
    const list = findPlaylist(context.store, playlist);
    if (list.trackIds.length === 0) throw new ToolError("playlist_empty", `"${list.name}" is empty. Nothing to remove.`);
    const track = findByName(list.trackIds.map(trackById), query, {
      what: `song in "${list.name}"`,
      id: (item) => item.id,
      name: (item) => item.title,
      listTool: "list_playlists",
    });
    playlists(context.store).put(list.id, { ...list, trackIds: list.trackIds.filter((id) => id !== track.id) });
    return { playlist: list.name, removed: track.title, tracks: list.trackIds.length - 1 };
  },
});

export const musicApp: App = {
  name: MUSIC_APP,
  group: "life",
  title: "Music",
  description: "Your music library: play, pause, skip, queue, playlists and the player's volume.",
  tools: [searchMusic, playMusic, pauseMusic, resumeMusic, skipTrack, queueTrack, getNowPlaying, setMusicVolume, listPlaylists, createPlaylist, addToPlaylist, removeFromPlaylist],
  seed(tx) {
    const seedLists: [string, string[]][] = [
      ["Running", ["t9-1", "t9-2", "t9-3", "t9-4", "t3-5", "t7-2", "t9-5"]],
      ["Focus", ["t12-1", "t12-2", "t12-3", "t6-1", "t10-3"]],
      ["Sunday Morning", ["t8-1", "t8-2", "t4-2", "t6-4", "t1-1", "t10-1"]],
    ];
    for (const [name, trackIds] of seedLists) {
      const id = playlists(tx).nextId("playlist");
      playlists(tx).put(id, { id, name, trackIds });
    }
    writePlayer(tx, { state: "paused", trackId: "t2-1", queue: ["t2-2", "t2-3", "t2-4", "t2-5"], volume: 45, source: "album Harbour Lights" });
  },
  view(tx) {
    const player = readPlayer(tx);
    const state = nowPlaying(player);
    const lists = playlists(tx).all();
    const text = [
      state.track === undefined ? "Nothing playing." : `${state.state === "playing" ? "Playing" : "Paused"}: ${state.track.title} — ${state.track.artist} (${state.source ?? ""})`,
      `Volume: ${player.volume}`,
      state.up_next.length > 0 ? `Up next: ${state.up_next.join(", ")}${state.queued > 5 ? ` and ${state.queued - 5} more` : ""}` : "Queue empty.",
      `Playlists: ${lists.map((list) => `${list.name} (${list.trackIds.length})`).join(", ") || "none"}`,
      `Library: ${MUSIC_LIBRARY.length} songs, ${ALBUMS.length} albums, ${new Set(ALBUMS.map((album) => album.artist)).size} artists`,
    ].join("\n");
    return { text, data: { player: state, playlists: lists.map((list) => ({ ...list, tracks: list.trackIds.map((id) => trackById(id).title) })), librarySize: MUSIC_LIBRARY.length } };
  },
};
