/** Demo community for `npm run seed`: people, the music they love, and things they say. */

export interface SeedPerson {
  username: string;
  displayName: string;
  bio: string;
  /** Indexes into SEED_ARTISTS this person posts about most. */
  loves: number[];
}

export interface SeedArtist {
  name: string;
  albums: { title: string; tracks: string[] }[];
  /** A Bandcamp page, when the artist has a well-known one (shown as a card). */
  bandcamp?: string;
}

export const SEED_ARTISTS: SeedArtist[] = [
  {
    name: "Radiohead",
    albums: [
      {
        title: "In Rainbows",
        tracks: ["Weird Fishes/Arpeggi", "Reckoner", "Nude", "House of Cards"],
      },
      {
        title: "Kid A",
        tracks: ["Everything in Its Right Place", "Idioteque", "How to Disappear Completely"],
      },
    ],
  },
  {
    name: "Khruangbin",
    albums: [
      { title: "Mordechai", tracks: ["Time (You and I)", "Pelota", "So We Won't Forget"] },
      {
        title: "Con Todo El Mundo",
        tracks: ["Maria También", "Friday Morning", "Evan Finds the Third Room"],
      },
    ],
    bandcamp: "https://khruangbin.bandcamp.com/album/mordechai",
  },
  {
    name: "Phoebe Bridgers",
    albums: [
      { title: "Punisher", tracks: ["Kyoto", "Garden Song", "I Know the End", "Moon Song"] },
    ],
  },
  {
    name: "Kendrick Lamar",
    albums: [
      { title: "To Pimp a Butterfly", tracks: ["Alright", "King Kunta", "These Walls"] },
      { title: "DAMN.", tracks: ["DNA.", "LOVE.", "FEAR."] },
    ],
  },
  {
    name: "Björk",
    albums: [
      { title: "Homogenic", tracks: ["Jóga", "Bachelorette", "Hunter"] },
      { title: "Vespertine", tracks: ["Hidden Place", "Pagan Poetry", "Cocoon"] },
    ],
  },
  {
    name: "Portishead",
    albums: [{ title: "Dummy", tracks: ["Roads", "Glory Box", "Sour Times"] }],
  },
  {
    name: "Fleetwood Mac",
    albums: [{ title: "Rumours", tracks: ["Dreams", "The Chain", "Go Your Own Way", "Songbird"] }],
  },
  {
    name: "Daft Punk",
    albums: [{ title: "Discovery", tracks: ["Digital Love", "Something About Us", "Veridis Quo"] }],
  },
  {
    name: "Massive Attack",
    albums: [{ title: "Mezzanine", tracks: ["Teardrop", "Angel", "Inertia Creeps"] }],
  },
  {
    name: "Beach House",
    albums: [
      { title: "Bloom", tracks: ["Myth", "Lazuli", "Wishes"] },
      { title: "Depression Cherry", tracks: ["Space Song", "PPP"] },
    ],
  },
  {
    name: "Frank Ocean",
    albums: [{ title: "Blonde", tracks: ["Nikes", "Ivy", "Pink + White", "Self Control"] }],
  },
  {
    name: "Sade",
    albums: [
      { title: "Love Deluxe", tracks: ["No Ordinary Love", "Kiss of Life", "Cherish the Day"] },
    ],
  },
  {
    name: "Miles Davis",
    albums: [{ title: "Kind of Blue", tracks: ["So What", "Blue in Green", "Flamenco Sketches"] }],
  },
  {
    name: "Aphex Twin",
    albums: [{ title: "Selected Ambient Works 85–92", tracks: ["Xtal", "Tha", "Heliosphan"] }],
  },
  {
    name: "Tame Impala",
    albums: [
      { title: "Currents", tracks: ["Let It Happen", "The Less I Know the Better", "Eventually"] },
    ],
  },
  {
    name: "Talking Heads",
    albums: [
      {
        title: "Remain in Light",
        tracks: ["Once in a Lifetime", "Born Under Punches", "Crosseyed and Painless"],
      },
    ],
  },
  {
    name: "Stevie Wonder",
    albums: [{ title: "Songs in the Key of Life", tracks: ["Sir Duke", "As", "Isn't She Lovely"] }],
  },
  {
    name: "Erykah Badu",
    albums: [{ title: "Baduizm", tracks: ["On & On", "Next Lifetime", "Otherside of the Game"] }],
  },
  {
    name: "Burial",
    albums: [{ title: "Untrue", tracks: ["Archangel", "Untrue", "Etched Headplate"] }],
  },
  {
    name: "Four Tet",
    albums: [
      { title: "Rounds", tracks: ["She Moves She", "My Angel Rocks Back and Forth"] },
      { title: "There Is Love in You", tracks: ["Love Cry", "Angel Echoes"] },
    ],
    bandcamp: "https://fourtet.bandcamp.com/album/rounds",
  },
  {
    name: "Mitski",
    albums: [{ title: "Be the Cowboy", tracks: ["Nobody", "Two Slow Dancers", "Geyser"] }],
  },
  {
    name: "Rosalía",
    albums: [
      { title: "El Mal Querer", tracks: ["Malamente", "Pienso en tu mirá", "Di mi nombre"] },
    ],
  },
  {
    name: "Nujabes",
    albums: [{ title: "Modal Soul", tracks: ["Feather", "Luv(sic) Part 3", "Reflection Eternal"] }],
  },
  {
    name: "Sufjan Stevens",
    albums: [
      {
        title: "Carrie & Lowell",
        tracks: ["Should Have Known Better", "Fourth of July", "Death with Dignity"],
      },
    ],
    bandcamp: "https://sufjanstevens.bandcamp.com/album/carrie-lowell",
  },
  {
    name: "Boards of Canada",
    albums: [
      {
        title: "Music Has the Right to Children",
        tracks: ["Roygbiv", "Aquarius", "Turquoise Hexagon Sun"],
      },
    ],
  },
  {
    name: "Kate Bush",
    albums: [
      {
        title: "Hounds of Love",
        tracks: ["Running Up That Hill", "Cloudbusting", "Hounds of Love"],
      },
    ],
  },
  {
    name: "Little Simz",
    albums: [
      {
        title: "Sometimes I Might Be Introvert",
        tracks: ["Introvert", "Woman", "I Love You, I Hate You"],
      },
    ],
  },
  {
    name: "Japanese Breakfast",
    albums: [{ title: "Jubilee", tracks: ["Be Sweet", "Paprika", "Savage Good Boy"] }],
    bandcamp: "https://japanesebreakfast.bandcamp.com/album/jubilee",
  },
  {
    name: "The Cure",
    albums: [{ title: "Disintegration", tracks: ["Pictures of You", "Lovesong", "Plainsong"] }],
  },
  {
    name: "Fela Kuti",
    albums: [{ title: "Expensive Shit", tracks: ["Expensive Shit", "Water No Get Enemy"] }],
  },
  {
    name: "Caribou",
    albums: [
      { title: "Swim", tracks: ["Odessa", "Sun", "Bowls"] },
      { title: "Suddenly", tracks: ["Home", "You and I"] },
    ],
  },
  {
    name: "Alice Coltrane",
    albums: [
      { title: "Journey in Satchidananda", tracks: ["Journey in Satchidananda", "Shiva-Loka"] },
    ],
  },
];

export const SEED_PEOPLE: SeedPerson[] = [
  {
    username: "ana_rivera",
    displayName: "Ana Rivera",
    bio: "Vinyl digger. Night-bus playlists. #dreampop forever.",
    loves: [9, 4, 20, 21],
  },
  {
    username: "ben.okafor",
    displayName: "Ben Okafor",
    bio: "Afrobeat, jazz and anything with a horn section.",
    loves: [29, 12, 31, 17],
  },
  {
    username: "chloe_m",
    displayName: "Chloé Martin",
    bio: "Trip-hop kid from Bristol, now in Lyon.",
    loves: [5, 8, 18, 0],
  },
  {
    username: "dev_patel",
    displayName: "Dev Patel",
    bio: "Producer by night. Sampling everything.",
    loves: [22, 7, 3, 13],
  },
  {
    username: "emma.lind",
    displayName: "Emma Lindqvist",
    bio: "Swedish winters need Björk.",
    loves: [4, 25, 24, 13],
  },
  {
    username: "farid_h",
    displayName: "Farid Haddad",
    bio: "Oud player who secretly loves synth-pop.",
    loves: [15, 7, 30, 14],
  },
  {
    username: "grace_k",
    displayName: "Grace Kim",
    bio: "Indie rock, sad girl autumn, long walks.",
    loves: [2, 20, 27, 9],
  },
  {
    username: "hugo.b",
    displayName: "Hugo Bernard",
    bio: "Jazz piano student. Bill Evans disciple.",
    loves: [12, 31, 16, 11],
  },
  {
    username: "ines_costa",
    displayName: "Inês Costa",
    bio: "Fado at home, flamenco on the road.",
    loves: [21, 11, 17, 6],
  },
  {
    username: "jonas_w",
    displayName: "Jonas Weber",
    bio: "Berlin. Techno on weekends, ambient on Mondays.",
    loves: [19, 13, 18, 30],
  },
  {
    username: "kemi.ade",
    displayName: "Kemi Adeyemi",
    bio: "Neo-soul and Sunday cooking.",
    loves: [17, 11, 10, 16],
  },
  {
    username: "leo_rossi",
    displayName: "Leo Rossi",
    bio: "Guitar nerd. Yes, I own too many pedals.",
    loves: [14, 0, 15, 28],
  },
  {
    username: "maya.cohen",
    displayName: "Maya Cohen",
    bio: "Writing songs about trains.",
    loves: [23, 2, 20, 6],
  },
  {
    username: "nils_e",
    displayName: "Nils Eriksen",
    bio: "Post-punk and long coats.",
    loves: [28, 15, 0, 25],
  },
  {
    username: "olivia_t",
    displayName: "Olivia Turner",
    bio: "Pop girlie with a secret jazz habit.",
    loves: [6, 25, 10, 12],
  },
  {
    username: "pablo.g",
    displayName: "Pablo García",
    bio: "Madrid. Rosalía changed my life.",
    loves: [21, 10, 3, 7],
  },
  {
    username: "quinn_r",
    displayName: "Quinn Reid",
    bio: "Radio host, community station. Requests welcome.",
    loves: [1, 29, 15, 16],
  },
  {
    username: "rosa.n",
    displayName: "Rosa Nakamura",
    bio: "Lo-fi beats to study and cry to.",
    loves: [22, 24, 13, 9],
  },
  {
    username: "sam_bell",
    displayName: "Sam Bell",
    bio: "Drummer. Counting in since 2009.",
    loves: [3, 26, 7, 15],
  },
  {
    username: "tara.s",
    displayName: "Tara Singh",
    bio: "Classical by training, electronic by choice.",
    loves: [30, 19, 4, 31],
  },
  {
    username: "umar_f",
    displayName: "Umar Farouk",
    bio: "Hip-hop head, lyric nerd.",
    loves: [3, 26, 10, 22],
  },
  {
    username: "vera_p",
    displayName: "Vera Petrova",
    bio: "Shoegaze and sleepless nights.",
    loves: [9, 28, 0, 18],
  },
  {
    username: "will.h",
    displayName: "Will Harper",
    bio: "Dad rock, unironically.",
    loves: [6, 15, 16, 25],
  },
  {
    username: "xin_l",
    displayName: "Xin Li",
    bio: "Concert photographer. Front row or nothing.",
    loves: [14, 27, 2, 1],
  },
  {
    username: "yara_m",
    displayName: "Yara Mansour",
    bio: "DJ, Beirut → Paris. House with a heart.",
    loves: [30, 19, 7, 17],
  },
  {
    username: "zoe.a",
    displayName: "Zoë Andersen",
    bio: "Folk songs and foggy mornings.",
    loves: [23, 2, 12, 24],
  },
  {
    username: "arjun_n",
    displayName: "Arjun Nair",
    bio: "Carnatic roots, hip-hop branches.",
    loves: [26, 3, 31, 22],
  },
  {
    username: "bea.l",
    displayName: "Beatriz Lopes",
    bio: "Bossa nova and bad puns.",
    loves: [11, 12, 1, 5],
  },
  {
    username: "carl_j",
    displayName: "Carl Johansson",
    bio: "Collecting Cure bootlegs since '89.",
    loves: [28, 25, 5, 0],
  },
  {
    username: "dana.v",
    displayName: "Dana Vasquez",
    bio: "Choir alto. Harmonies are my love language.",
    loves: [4, 20, 23, 11],
  },
];

export const NOTE_TEMPLATES = [
  "On repeat all week. {tag}",
  "This bassline 🤯 @{friend} you'd love this.",
  "First listen in years and it still hits. {tag}",
  "Perfect for the train home tonight.",
  "Found this on a crate at the flea market for 3 euros. Best purchase of the year. {tag}",
  "Headphones on, world off.",
  "Can't believe I slept on this for so long.",
  "The bridge at 2:40 — that's the whole song for me.",
  "Sunday morning coffee soundtrack ☕ {tag}",
  "Saw them live last night. Still buzzing. {tag}",
  "If you only listen to one thing today, make it this.",
  "Rainy day, right album. {tag}",
  "@{friend} this is the one I was telling you about!",
  "",
  "",
  "Cooking dinner to this and dancing badly.",
  "Every time I hear it I notice something new.",
  "A perfect album, front to back. {tag}",
];

export const TAGS = [
  "#nowplaying",
  "#vinyl",
  "#latenight",
  "#throwback",
  "#newmusicfriday",
  "#livemusic",
  "#headphones",
  "#dreampop",
  "#jazz",
  "#sundaymorning",
];

export const COMMENT_TEMPLATES = [
  "Great pick!",
  "Adding this to my playlist right now.",
  "This takes me back 😭",
  "Such a good record.",
  "Have you heard their live version? Even better.",
  "Underrated!!",
  "The production on this is unreal.",
  "Okay you've convinced me, listening tonight.",
  "One of my all-time favourites.",
  "Thank you for this, needed it today.",
  "Saw them in 2019, unforgettable.",
  "Ooh, good mood for this one.",
];
