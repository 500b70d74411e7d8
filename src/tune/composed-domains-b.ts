import { choiceSlot, dateSlot, flagSlot, listSlot, numberListSlot, numberSlot, spokenList, textSlot, type Domain } from "./composed-tools.js";

/**
 * A second set of domains for composed tools: everyday errands and bookings
 * (a massage, a dog walker, a tailor, a kayak) that a person might wire up as
 * their own tools.
 */

/** A member name as words ("deep_tissue" to "deep tissue"). */
function words(value: unknown): string {
  return String(value).replace(/_/g, " ");
}

function list(value: unknown): string {
  return spokenList((value as readonly unknown[]).map(String));
}

/** " <prefix> <value>" when the value was given, "" when it was left out. */
function given(value: unknown, prefix: string): string {
  return value === undefined ? "" : ` ${prefix} ${words(value)}`;
}

/** "a" or "an" before a word or number as it is said ("an 80-minute", "an exterior", "an SUV"). */
function article(value: unknown): string {
  const text = String(value).toLowerCase();
  return /^(8|11|18|[aeio]|suv)/.test(text) && !/^(11\d|18\d\d)/.test(text) ? "an" : "a";
}

const VEHICLES: Record<string, string> = { small_car: "small car", suv: "SUV", van: "van", motorbike: "motorbike" };

export const DOMAINS_B: readonly Domain[] = [
  {
    names: ["book_massage", "spa_booking", "reserveMassage"],
    description: "Books a massage appointment at a spa.",
    purpose: "book a massage at a spa",
    leads: ["book me a massage", "book a spa appointment", "get me booked in for a massage", "reserve a massage"],
    slots: [
      textSlot(
        ["spa_name", "spaName", "venue"],
        "The spa to book at",
        true,
        ["Harbour Spa", "The Willow Day Spa", "Lotus Garden Wellness", "Stonebridge Thermal Baths", "Blue Fern Retreat", "Maple Street Massage Studio"],
        [(value) => `at ${value}`, (value) => `over at ${value}`, (value) => `with ${value}`],
      ),
      numberSlot(["duration_minutes", "durationMinutes", "minutes"], "Length of the massage in minutes", true, { low: 30, high: 120, step: 15 }, [
        (value) => `for ${value} minutes`,
        (value) => `lasting ${value} minutes`,
        (value) => `for a ${value}-minute session`,
      ]),
      choiceSlot(["massage_type", "massageType", "style"], "Kind of massage", true, {
        swedish: ["with long, gentle flowing strokes", "of the classic relaxing kind", "that's light and soothing"],
        deep_tissue: ["with firm, deep pressure", "that really works the knots out", "deep tissue style"],
        hot_stone: ["with heated basalt stones", "using warm stones on my back", "with hot stones"],
        sports: ["aimed at sore legs after training", "for recovery after a big run", "geared to athletes"],
      }),
      choiceSlot(["therapist_gender", "therapistGender"], "Preferred therapist", false, {
        female: ["with a female therapist", "with a woman doing it"],
        male: ["with a male therapist", "with a man doing it"],
        any: ["with whichever therapist is free", "with whoever is available"],
      }),
      dateSlot(["date", "appointment_date", "appointmentDate"], "Day of the appointment", false, [(date) => `on ${date}`, (date) => `for ${date}`]),
    ],
    reply: (values) =>
      `Booked ${article(values[1])} ${String(values[1])}-minute ${values[2] === "swedish" ? "Swedish" : words(values[2])} massage at ${String(values[0])}${given(values[4], "on")}${values[3] === undefined || values[3] === "any" ? "" : ` with a ${words(values[3])} therapist`}.`,
  },
  {
    names: ["book_dog_walker", "dogWalkBooking", "schedule_dog_walk"],
    description: "Books a dog walker to take a dog out on a given day.",
    purpose: "book a dog walker",
    leads: ["book a dog walker", "find someone to walk my dog", "get a walker for my dog", "arrange a dog walk"],
    slots: [
      textSlot(
        ["dog_name", "dogName", "dog"],
        "The dog's name",
        true,
        ["Biscuit", "Major Tom", "Pepper", "Lady Marmalade", "Otis", "Juniper", "Captain Wiggles"],
        [(value) => `for ${value}`, (value) => `for my dog ${value}`, (value) => `to take ${value} out`],
      ),
      dateSlot(["date", "walk_date", "walkDate"], "Day of the walk", true, [(date) => `on ${date}`, (date) => `for ${date}`]),
      numberSlot(["duration_minutes", "durationMinutes", "length"], "Walk length in minutes", true, { low: 20, high: 90, step: 10 }, [
        (value) => `for ${value} minutes`,
        (value) => `for about ${value} minutes`,
        (value) => `lasting ${value} minutes`,
      ]),
      choiceSlot(["pace", "walk_pace", "walkPace"], "How energetic the walk should be", false, {
        gentle: ["at a slow pace for an old dog", "nice and leisurely", "at an easy stroll"],
        brisk: ["at a good quick clip", "at a fast walk"],
        jog: ["with a proper run alongside", "running rather than walking"],
      }),
      flagSlot(
        ["off_leash", "offLeash", "allow_off_lead"],
        "Whether the dog may be let off the lead",
        false,
        ["with off-lead time allowed", "letting the dog run free in the park"],
        ["on the lead the whole time", "with the lead kept on throughout"],
      ),
    ],
    reply: (values) =>
      `Booked ${article(values[2])} ${String(values[2])}-minute${given(values[3], "")} walk for ${String(values[0])} on ${String(values[1])}${values[4] === true ? ", off-lead allowed" : values[4] === false ? ", on the lead only" : ""}.`.replace(
        /  +/g,
        " ",
      ),
  },
  {
    names: ["book_car_wash", "carWashBooking", "schedule_valet"],
    description: "Books a car wash or valet at a chosen location.",
    purpose: "book a car wash",
    leads: ["book a car wash", "get my car cleaned", "have my car washed", "schedule a valet for my car"],
    slots: [
      textSlot(
        ["location", "wash_location", "washLocation"],
        "Where the wash happens (a wash site or an address)",
        true,
        ["Sparkle Auto on Kings Road", "Glenview Shopping Centre", "14 Hawthorn Close", "Quayside Car Spa", "the Riverside Retail Park", "Bubbles Hand Wash in Elmwood"],
        [(value) => `at ${value}`, (value) => `over at ${value}`],
      ),
      choiceSlot(["package", "wash_package", "washPackage"], "Which wash package", true, {
        exterior: ["just the outside", "only the bodywork and wheels", "with a quick rinse of the paintwork only"],
        interior: ["just a clean inside", "vacuuming and wiping down the cabin only", "only the seats and carpets"],
        full_valet: ["inside and out", "the works, inside and outside", "with a complete top-to-bottom clean"],
      }),
      choiceSlot(["vehicle_type", "vehicleType"], "Kind of vehicle", false, {
        small_car: ["for my little hatchback", "for a small city car"],
        suv: ["for a big 4x4", "for a large off-roader"],
        van: ["for my work van", "for a Transit-sized vehicle"],
        motorbike: ["for my motorcycle", "for a 600cc road bike"],
      }),
      flagSlot(["add_wax", "addWax", "wax"], "Whether to add a wax finish", false, ["with a wax finish", "with a polish and wax at the end", "with a shiny protective coat"], ["without wax", "skipping the wax"]),
    ],
    reply: (values) => `Booked ${article(values[1])} ${words(values[1])} wash at ${String(values[0])}${values[2] === undefined ? "" : ` for ${article(values[2])} ${VEHICLES[String(values[2])] ?? words(values[2])}`}${values[3] === true ? ", with wax" : ""}.`,
  },
  {
    names: ["moving_quote", "getRemovalQuote", "quote_house_move"],
    description: "Gets a quote from a removals company for moving home.",
    purpose: "get a quote for moving house",
    leads: ["get me a moving quote", "get a quote from a removals firm", "price up a house move", "find out what a house move would cost"],
    slots: [
      textSlot(
        ["from_address", "fromAddress", "origin"],
        "Current address",
        true,
        ["22 Linden Avenue, Bristol", "Flat 4, 9 Cromwell Road", "31 Orchard Lane, Didsbury", "the Old Rectory in Little Wenham", "118 Castle Street, Cardiff"],
        [(value) => `from ${value}`, (value) => `moving out of ${value}`],
      ),
      textSlot(
        ["to_address", "toAddress", "destination"],
        "New address",
        true,
        ["5 Heron Way, Exeter", "Apartment 12, Canal Wharf", "Rose Cottage in Upper Slaughter", "47 Primrose Hill Road", "2 Seaview Terrace, Whitby"],
        [(value) => `to ${value}`, (value) => `going to ${value}`],
      ),
      numberSlot(["bedrooms", "bedroom_count", "bedroomCount"], "Bedrooms' worth of furniture", true, { low: 1, high: 5 }, [
        (value) => `for a ${value}-bedroom home`,
        (value) => `with ${value} bedrooms of stuff`,
      ]),
      listSlot(
        ["bulky_items", "bulkyItems", "large_items"],
        "Large items that need special handling",
        false,
        ["upright piano", "American fridge freezer", "king-size bed", "oak wardrobe", "corner sofa", "snooker table", "aquarium", "treadmill"],
        [(items) => `including the ${items}`, (items) => `plus our ${items}`, (items) => `with big items like the ${items}`],
      ),
      flagSlot(
        ["packing_service", "packingService", "need_packing"],
        "Whether the movers pack everything",
        false,
        ["with the movers packing everything", "with full packing done for us"],
        ["doing our own packing", "with no packing service"],
      ),
    ],
    reply: (values) => {
      const items = values[3] === undefined ? [] : (values[3] as readonly unknown[]);
      const price = 350 + 250 * Number(values[2]) + 80 * items.length + (values[4] === true ? 300 : 0);
      return `Quote: £${price} to move a ${String(values[2])}-bedroom home from ${String(values[0])} to ${String(values[1])}${items.length > 0 ? `, including the ${list(items)}` : ""}${values[4] === true ? ", with packing" : ""}.`;
    },
  },
  {
    names: ["search_wine", "findWine", "wine_shop_search"],
    description: "Searches a wine shop's catalogue by style, region and price.",
    purpose: "search a wine shop's catalogue",
    leads: ["find me a bottle of wine", "search the wine shop", "look for a wine", "pick out a bottle"],
    slots: [
      choiceSlot(["style", "wine_style", "wineStyle"], "Style of wine", true, {
        red: ["that's dark and tannic", "like a Bordeaux or a Rioja", "to go with a rare steak"],
        white: ["like a crisp Chablis", "that's pale and zesty", "to go with oysters"],
        rose: ["that's pink", "like a pale Provence pink"],
        sparkling: ["with bubbles", "that's fizzy for a toast", "like a Champagne or a Cava"],
      }),
      listSlot(
        ["regions", "wine_regions", "wineRegions"],
        "Regions to search",
        false,
        ["Rioja", "Douro Valley", "Barossa", "Marlborough", "Mosel", "Piedmont", "Loire Valley", "Mendoza", "Sonoma County"],
        [(items) => `from ${items}`, (items) => `from regions like ${items}`],
      ),
      numberSlot(["max_price", "maxPrice", "budget"], "Highest price per bottle, in pounds", false, { low: 8, high: 60, step: 2 }, [
        (value) => `under £${value}`,
        (value) => `for no more than £${value}`,
        (value) => `with a budget of ${value} pounds`,
      ]),
      flagSlot(["organic", "organic_only", "organicOnly"], "Only organic wines", false, ["organic only", "grown without synthetic pesticides", "from organic vineyards"], ["with no need for organic", "organic or not"]),
    ],
    reply: (values) => {
      const count = 3 + (String(values[0]).length % 5);
      return `Found ${count} ${words(values[0])} wines${values[1] === undefined ? "" : ` from ${list(values[1])}`}${given(values[2], "under £")}${values[3] === true ? ", all organic" : ""}.`.replace("£ ", "£");
    },
  },
  {
    names: ["plan_museum_visit", "museumVisit", "book_museum_entry"],
    description: "Plans a museum visit and reserves timed entry for a group.",
    purpose: "plan a museum visit",
    leads: ["plan a museum visit", "book us into a museum", "sort out a trip to a museum", "reserve museum entry"],
    slots: [
      textSlot(
        ["museum", "museum_name", "museumName"],
        "The museum",
        true,
        ["the Natural History Museum", "the Rijksmuseum", "Tate Modern", "the Museum of Flight", "the Pitt Rivers Museum", "the Hunterian", "the Design Museum"],
        [(value) => `at ${value}`, (value) => `to ${value}`, (value) => `for ${value}`],
      ),
      dateSlot(["date", "visit_date", "visitDate"], "Day of the visit", true, [(date) => `on ${date}`, (date) => `for ${date}`]),
      numberSlot(["visitors", "group_size", "groupSize"], "Number of people", true, { low: 2, high: 8 }, [(value) => `for ${value} people`, (value) => `for a group of ${value}`]),
      listSlot(
        ["exhibitions", "galleries", "must_see"],
        "Galleries or exhibitions to include",
        false,
        ["the dinosaur hall", "Impressionist paintings", "ancient Egypt", "the space gallery", "modern sculpture", "the costume collection", "Viking artefacts"],
        [(items) => `taking in ${items}`, (items) => `making sure we see ${items}`, (items) => `covering ${items}`],
      ),
      choiceSlot(["ticket_type", "ticketType", "concession"], "Price band for the group", false, {
        adult: ["at full price", "on standard entry"],
        student: ["with university ID discounts", "as uni undergraduates"],
        senior: ["as pensioners", "for over-65s"],
        family: ["on the two-adults-and-kids deal", "as parents with our kids"],
      }),
    ],
    reply: (values) =>
      `Reserved entry to ${String(values[0])} on ${String(values[1])} for ${String(values[2])} people${given(values[4], "at the")}${values[4] === undefined ? "" : " rate"}${values[3] === undefined ? "" : `; route covers ${list(values[3])}`}.`,
  },
  {
    names: ["book_babysitter", "findBabysitter", "babysitting_request"],
    description: "Books a babysitter for the given children, day and number of hours.",
    purpose: "book a babysitter",
    leads: ["book a babysitter", "find someone to watch the kids", "line up a sitter", "get us a babysitter"],
    slots: [
      numberListSlot(["child_ages", "childAges", "ages"], "Ages of the children", true, { low: 1, high: 12 }, [
        (ages) => `for kids aged ${ages}`,
        (ages) => `for children who are ${ages}`,
      ]),
      dateSlot(["date", "sitting_date", "sittingDate"], "Day the sitter is needed", true, [(date) => `on ${date}`, (date) => `for the evening of ${date}`]),
      numberSlot(["hours", "duration_hours", "durationHours"], "How many hours", true, { low: 2, high: 8 }, [(value) => `for ${value} hours`, (value) => `for about ${value} hours`]),
      flagSlot(
        ["first_aid", "firstAidTrained", "needs_first_aid"],
        "Whether the sitter must hold a first-aid certificate",
        false,
        ["with first-aid training", "who knows CPR"],
        ["without needing first-aid training", "first-aid certificate not required"],
      ),
      choiceSlot(["language", "sitter_language", "sitterLanguage"], "Language the sitter speaks with the children", false, {
        spanish: ["who can talk to them in Castilian", "who grew up speaking the language of Madrid"],
        french: ["who can chat in the language of Paris", "who's fluent in français"],
        german: ["who speaks Deutsch", "who grew up speaking the language of Berlin"],
      }),
    ],
    reply: (values) =>
      `Booked a ${values[4] === undefined ? "" : `${words(values[4]).replace(/^./, (letter) => letter.toUpperCase())}-speaking `}sitter on ${String(values[1])} for ${String(values[2])} hours, for children aged ${list(values[0])}${values[3] === true ? "; first-aid trained" : ""}.`,
  },
  {
    names: ["book_piano_tuner", "pianoTuning", "schedule_piano_tuning"],
    description: "Books a piano tuner to visit the piano at home.",
    purpose: "book a piano tuner",
    leads: ["book a piano tuner", "get my piano tuned", "find someone to tune the piano", "arrange a piano tuning"],
    slots: [
      textSlot(
        ["address", "home_address", "homeAddress"],
        "Where the piano is",
        true,
        ["7 Willow Crescent", "Flat 2B, 40 Marlborough Street", "The Old Forge, Church Lane", "63 Kelvin Drive, Glasgow", "19 Rue des Lilas"],
        [(value) => `at ${value}`, (value) => `at my home at ${value}`],
      ),
      choiceSlot(["piano_type", "pianoType", "instrument"], "Kind of piano", true, {
        upright: ["for a piano that stands against the wall", "for an old family piano with a vertical frame", "for an upright"],
        baby_grand: ["for a small grand", "for a short grand in the living room"],
        grand: ["for a full-size concert instrument", "for a big Steinway model D"],
      }),
      dateSlot(["date", "visit_date", "visitDate"], "Day of the visit", false, [(date) => `on ${date}`, (date) => `sometime on ${date}`]),
      numberSlot(["years_since_tuned", "yearsSinceTuned"], "Years since it was last tuned", false, { low: 2, high: 15 }, [
        (value) => `last tuned ${value} years ago`,
        (value) => `not tuned for ${value} years`,
      ]),
    ],
    reply: (values) =>
      `A tuner will visit ${String(values[0])}${given(values[2], "on")} for the ${words(values[1])} piano${values[3] !== undefined && Number(values[3]) > 5 ? "; allow extra time for a pitch raise" : ""}.`,
  },
  {
    names: ["book_bike_repair", "bikeRepair", "cycle_service_booking"],
    description: "Books a bicycle into a repair shop for the listed problems.",
    purpose: "book my bike in for a repair",
    leads: ["book my bike in for a repair", "get my bike fixed", "find a bike mechanic", "sort out a bike repair"],
    slots: [
      textSlot(
        ["bike", "bike_model", "bikeModel"],
        "The bike (make and model)",
        true,
        ["Brompton M6L", "Trek FX 3", "Specialized Rockhopper", "Dawes Galaxy", "Cannondale Synapse", "Raleigh Pioneer", "Giant Escape 2"],
        [(value) => `for my ${value}`, (value) => `for a ${value}`],
      ),
      listSlot(
        ["problems", "issues", "faults"],
        "What needs fixing",
        true,
        ["squeaky brakes", "a flat rear tyre", "a slipping chain", "a bent wheel", "gears that skip", "a loose headset", "a snapped brake cable", "a wobbly saddle"],
        [(items) => `with ${items}`, (items) => `to fix ${items}`, (items) => `because of ${items}`],
        { low: 1, high: 3 },
      ),
      choiceSlot(["urgency", "turnaround"], "How soon it is needed back", false, {
        same_day: ["back by this evening", "while I wait", "back before tonight"],
        this_week: ["back within a few days", "back before the weekend"],
        no_rush: ["whenever they get round to it", "with no hurry"],
      }),
      flagSlot(["collection", "pickup", "needs_pickup"], "Whether the shop collects the bike", false, ["with them picking it up from my house", "collected from home"], ["with me dropping it off", "dropped off by me"]),
    ],
    reply: (values) =>
      `Booked the ${String(values[0])} in for ${list(values[1])}${given(values[2], "turnaround:")}${values[3] === true ? "; collection arranged" : ""}.`,
  },
  {
    names: ["send_rsvp", "weddingRsvp", "reply_to_wedding_invite"],
    description: "Sends an RSVP for a wedding invitation, with meal choice and plus-one.",
    purpose: "reply to a wedding invitation",
    leads: ["send my RSVP for the wedding", "reply to the wedding invite", "RSVP to the wedding", "let the couple know about the wedding"],
    slots: [
      textSlot(
        ["guest_name", "guestName", "name"],
        "Guest replying",
        true,
        ["Hannah Okafor", "Tomás Rivera", "Aunt Bernadette", "Oliver Lindqvist", "Mei-Ling Chow", "Gareth Price"],
        [(value) => `for ${value}`, (value) => `from ${value}`, (value) => `on behalf of ${value}`],
      ),
      flagSlot(["attending", "will_attend", "willAttend"], "Whether the guest will come", true, ["accepting", "saying we'd love to come", "saying yes"], ["declining", "sending regrets", "saying sadly no"]),
      choiceSlot(["meal", "meal_choice", "mealChoice"], "Main course choice", false, {
        beef: ["with the steak for dinner", "choosing the sirloin"],
        fish: ["with the salmon", "choosing the sea bass"],
        vegetarian: ["with the option without meat or fish", "choosing the meat-free dish"],
        vegan: ["with the plant-based dish", "with nothing from animals on the plate"],
      }),
      textSlot(
        ["plus_one", "plusOne"],
        "Name of a plus-one",
        false,
        ["Sam Whitfield", "Lucía Moreno", "Jonah Abrams", "Freya Nilsen", "Marcus Bell"],
        [(value) => `bringing ${value}`, (value) => `with ${value} as plus-one`],
      ),
      listSlot(
        ["allergies", "dietary_needs", "dietaryNeeds"],
        "Food allergies to flag",
        false,
        ["peanuts", "shellfish", "gluten", "sesame", "dairy", "tree nuts", "eggs"],
        [(items) => `noting allergies to ${items}`, (items) => `mentioning an allergy to ${items}`],
        { low: 1, high: 2 },
      ),
    ],
    reply: (values) =>
      values[1] === true
        ? `RSVP sent: ${String(values[0])} is attending${given(values[3], "with")}${given(values[2], ", meal:")}${values[4] === undefined ? "" : `; allergies noted: ${list(values[4])}`}.`.replace(" ,", ",")
        : `RSVP sent: ${String(values[0])} has declined.`,
  },
  {
    names: ["book_alteration", "clothingAlterations", "tailor_request"],
    description: "Books a garment in with a tailor for alterations.",
    purpose: "book clothes in for alterations",
    leads: ["book an alteration with the tailor", "get some clothes altered", "book me in with a tailor", "arrange alterations"],
    slots: [
      textSlot(
        ["garment", "item", "garmentName"],
        "The garment",
        true,
        ["navy wool suit trousers", "green silk bridesmaid dress", "black denim jeans", "charcoal winter coat", "linen summer shirt", "burgundy velvet blazer"],
        [(value) => `for my ${value}`, (value) => `on the ${value}`],
      ),
      listSlot(
        ["alterations", "changes", "jobs"],
        "Alterations wanted",
        true,
        ["take in the waist", "shorten the hem", "let out the seams", "taper the legs", "replace the zip", "shorten the sleeves", "add a lining"],
        [(items) => `to ${items}`, (items) => `so they can ${items}`],
        { low: 1, high: 3 },
      ),
      choiceSlot(["service", "speed"], "Service speed", false, {
        standard: ["with the normal turnaround", "in the usual time"],
        express: ["rushed through in a couple of days", "as a rush job"],
      }),
      dateSlot(["needed_by", "neededBy", "deadline"], "Date the garment is needed back", false, [(date) => `ready by ${date}`, (date) => `before ${date}`]),
    ],
    reply: (values) => `Booked the ${String(values[0])} in to ${list(values[1])}${given(values[2], "with")}${values[2] === undefined ? "" : " service"}${given(values[3], ", ready by")}.`.replace(" ,", ","),
  },
  {
    names: ["reserve_game_table", "boardGameCafeBooking", "book_games_table"],
    description: "Reserves a table at a board game café and can set games aside.",
    purpose: "reserve a table at a board game café",
    leads: ["reserve a table at the board game café", "book us a games table", "get a table for board games", "book a table for game night"],
    slots: [
      textSlot(
        ["cafe", "cafe_name", "cafeName"],
        "The café",
        true,
        ["Dice & Dough", "The Meeple Lounge", "Rook and Raven", "Tabletop Tavern", "The Cardboard Castle"],
        [(value) => `at ${value}`, (value) => `over at ${value}`],
      ),
      numberSlot(["players", "party_size", "partySize"], "Number of people", true, { low: 2, high: 10 }, [
        (value) => `for ${value} people`,
        (value) => `for ${value} of us`,
        (value) => `for a group of ${value}`,
      ]),
      choiceSlot(["session", "time_slot", "timeSlot"], "Part of the day", true, {
        afternoon: ["after lunch", "around 3 pm", "once lunch is over"],
        evening: ["after work", "around 7 pm", "from dinner time"],
        late: ["after 10 pm", "into the small hours", "for a late-night session"],
      }),
      listSlot(
        ["games", "reserved_games", "reservedGames"],
        "Games to set aside",
        false,
        ["Wingspan", "Catan", "Codenames", "Azul", "Pandemic", "Carcassonne", "Dixit", "Spirit Island", "Terraforming Mars"],
        [(items) => `with ${items} set aside`, (items) => `holding ${items} for us`],
        { low: 1, high: 3 },
      ),
    ],
    reply: (values) =>
      `Table for ${String(values[1])} reserved at ${String(values[0])} (${words(values[2])})${values[3] === undefined ? "" : `; ${list(values[3])} set aside`}.`,
  },
  {
    names: ["rent_kayak", "kayakRental", "hire_kayaks"],
    description: "Rents kayaks for a number of hours from a paddling centre.",
    purpose: "rent a kayak",
    leads: ["rent a kayak", "hire some kayaks", "book kayaks for us", "set us up with kayaks"],
    slots: [
      textSlot(
        ["location", "centre", "launchSite"],
        "Rental centre",
        true,
        ["Loch Lomond Paddle Centre", "Riverside Boathouse", "Windermere Canoe Hire", "the Lakeside Kayak Hut", "Derwent Water Outdoors"],
        [(value) => `at ${value}`, (value) => `from ${value}`],
      ),
      numberSlot(["boats", "kayak_count", "kayakCount"], "Number of kayaks", true, { low: 1, high: 6 }, [
        (value) => `for ${value} ${value === 1 ? "boat" : "boats"}`,
        (value) => `with ${value} ${value === 1 ? "kayak" : "kayaks"} in total`,
      ]),
      numberSlot(["hours", "rental_hours", "rentalHours"], "Hours of hire", true, { low: 1, high: 6 }, [
        (value) => `for ${value} ${value === 1 ? "hour" : "hours"}`,
        (value) => `lasting ${value} ${value === 1 ? "hour" : "hours"}`,
      ]),
      choiceSlot(["kayak_type", "kayakType", "boat_type"], "Kind of kayak", false, {
        single: ["with one person per boat", "as solo boats"],
        tandem: ["with two people per boat", "as double-seaters so we can paddle together"],
        sit_on_top: ["of the open kind you sit on rather than in", "with open decks for splashing about"],
      }),
      flagSlot(["wetsuits", "include_wetsuits", "includeWetsuits"], "Whether wetsuits are included", false, ["with wetsuits", "plus wetsuits to keep warm"], ["without wetsuits", "skipping the wetsuits"]),
    ],
    reply: (values) =>
      `Reserved ${String(values[1])}${given(values[3], "")} ${Number(values[1]) === 1 ? "kayak" : "kayaks"} at ${String(values[0])} for ${String(values[2])} ${Number(values[2]) === 1 ? "hour" : "hours"}${values[4] === true ? ", wetsuits included" : ""}.`.replace(
        /  +/g,
        " ",
      ),
  },
  {
    names: ["send_flowers", "flowerDelivery", "order_bouquet"],
    description: "Orders a bouquet delivered to someone on a given day, with an optional card.",
    purpose: "send flowers to someone",
    leads: ["send some flowers", "order a bouquet", "get flowers delivered", "arrange a flower delivery"],
    slots: [
      textSlot(
        ["recipient", "recipient_name", "recipientName"],
        "Who receives them",
        true,
        ["Grandma Edith", "Dr Anjali Rao", "Mrs Kowalski", "Chloe Brennan", "Uncle Fergus", "Nadia Haddad"],
        [(value) => `to ${value}`, (value) => `for ${value}`],
      ),
      choiceSlot(["occasion", "bouquet_style", "bouquetStyle"], "Occasion the bouquet is for", true, {
        birthday: ["to celebrate another year older", "for the day they were born"],
        sympathy: ["to say sorry for their loss", "after a death in the family"],
        anniversary: ["to mark our years together", "since it's ten years since our wedding"],
        get_well: ["while they recover from surgery", "to cheer them up in hospital"],
      }),
      dateSlot(["delivery_date", "deliveryDate", "date"], "Delivery day", true, [(date) => `on ${date}`, (date) => `arriving ${date}`]),
      textSlot(
        ["card_message", "cardMessage", "note"],
        "Message for the card",
        false,
        ["Thinking of you", "With all our love", "Sending a big hug", "From all of us at number 12"],
        [(value) => `with a card saying "${value}"`, (value) => `with the note "${value}"`],
      ),
    ],
    reply: (values) =>
      `Ordered a ${words(values[1])} bouquet for ${String(values[0])}, delivered ${String(values[2])}${values[3] === undefined ? "" : `, card: "${String(values[3])}"`}.`,
  },
];
