import { choiceSlot, dateSlot, flagSlot, listSlot, numberSlot, spokenList, textSlot, type Domain } from "./composed-tools.js";

/**
 * Domains of composed tools (see composed-tools.ts): travel, work, home and
 * shopping errands. Values are invented; choices are named in requests by
 * paraphrase, never only by the member's own word.
 */

const TOWNS = ["Lisbon", "Ghent", "Bologna", "Bergen", "Tallinn", "Ljubljana", "Salzburg", "Bruges", "Cork", "Malmö", "Aarhus", "San Sebastián", "Split", "Innsbruck", "Nantes", "Utrecht"];
const PEOPLE = ["Marta Silva", "Jonas Berg", "Priya Natarajan", "Tomás Ruiz", "Chloé Martin", "Kwame Mensah", "Ingrid Holm", "Yusuf Demir", "Hana Kobayashi", "Liam O'Connor", "Sofia Rossi", "Pavel Novak"];
const ADDRESSES = ["14 Rua das Flores", "221 Elm Street", "8 Kings Road", "Via Roma 33", "Stationsplein 5", "3 Harbour Lane", "17 Mill Close", "Calle Mayor 9"];

const as = (prefix: string) => (value: string | number) => `${prefix} ${value}`;

export const DOMAINS_A: readonly Domain[] = [
  {
    names: ["find_hotels", "search_hotels", "hotelSearch"],
    description: "Searches hotels with free rooms in a town.",
    purpose: "look for hotels",
    leads: ["find me a hotel", "look for a hotel room", "I need somewhere to stay", "search hotels"],
    slots: [
      textSlot(["city", "location", "destination"], "Town to stay in", true, TOWNS, [as("in"), as("in the centre of"), (town) => `when I'm in ${town}`]),
      numberSlot(["nights", "num_nights", "numNights"], "How many nights to stay", true, { low: 1, high: 9 }, [(n) => `for ${n} night${n === 1 ? "" : "s"}`, (n) => `staying ${n} night${n === 1 ? "" : "s"}`]),
      numberSlot(["max_price", "maxPricePerNight", "budget"], "Highest price a night, in euros", false, { low: 60, high: 300, step: 10 }, [(n) => `under ${n} euros a night`, (n) => `no more than €${n} per night`, (n) => `with a budget of ${n} euros a night`]),
      choiceSlot(["room_type", "roomType"], "Kind of room", false, {
        single: ["just for me on my own", "a single room", "one bed for one person"],
        double: ["for me and my partner in one bed", "with a double bed", "for a couple"],
        family: ["for two adults and the kids", "big enough for the whole family"],
      }),
      flagSlot(["breakfast_included", "breakfast"], "Whether breakfast must be included", false, ["with breakfast included", "where breakfast comes with the room"], ["room only, no breakfast", "without breakfast"]),
    ],
    reply: ([city, nights, price]) => `Found 4 hotels in ${String(city)} with rooms free for ${String(nights)} nights${price === undefined ? "" : `, all under ${String(price)} euros a night`}.`,
  },
  {
    names: ["get_directions", "plan_route", "routePlanner"],
    description: "Plans a route between two places and gives its time and distance.",
    purpose: "plan routes or give directions",
    leads: ["how do I get", "give me directions", "plan a route", "what's the best way to go"],
    slots: [
      textSlot(["origin", "start", "from_place"], "Where the route starts", true, ADDRESSES, [as("from")]),
      textSlot(["destination", "end", "to_place"], "Where the route ends", true, ["the central station", "Riverside Park", "the airport", "the old town square", "St Mary's Hospital", "the university library"], [as("to")]),
      choiceSlot(["mode", "travel_mode", "travelMode"], "How to travel", false, {
        driving: ["by car", "driving there", "if I take the car"],
        transit: ["by public transport", "on the bus or metro", "without a car, using the trams and buses"],
        walking: ["on foot", "if I walk", "walking"],
        cycling: ["by bike", "on my bicycle", "riding there"],
      }),
      flagSlot(["avoid_tolls", "avoidTolls"], "Whether to avoid toll roads", false, ["avoiding toll roads", "with no tolls"], ["tolls are fine", "toll roads allowed"]),
    ],
    reply: ([origin, destination, mode]) => `Route from ${String(origin)} to ${String(destination)}${mode === undefined ? "" : ` (${String(mode)})`}: 24 minutes, 7.8 km.`,
  },
  {
    names: ["find_restaurants", "restaurant_search", "searchRestaurants"],
    description: "Finds restaurants near a place, by kind of food.",
    purpose: "find restaurants",
    leads: ["find a place to eat", "where can I have dinner", "search for restaurants", "look for somewhere to eat"],
    slots: [
      textSlot(["area", "near", "location"], "Neighbourhood or town", true, ["Alfama", "the Latin Quarter", "Kreuzberg", "Trastevere", "Shoreditch", "De Pijp", "Gràcia", "Södermalm"], [as("in"), as("around")]),
      choiceSlot(["cuisine", "food_type", "foodType"], "Kind of food", true, {
        italian: ["that does pasta and pizza", "serving food from Italy", "for a risotto"],
        japanese: ["for sushi and ramen", "that serves sushi"],
        mexican: ["with tacos and burritos", "for tacos"],
        indian: ["for a curry", "that does dosas and curries"],
        thai: ["for a pad thai", "with green curry and pad thai"],
        vegetarian: ["with no meat on the menu", "that's meat-free"],
      }),
      numberSlot(["party_size", "people", "guests"], "Number of people", false, { low: 2, high: 10 }, [(n) => `for ${n} people`, (n) => `for a group of ${n}`, (n) => `table for ${n}`]),
      choiceSlot(["price_range", "priceRange"], "How expensive", false, {
        budget: ["cheap", "that won't cost much", "on a tight budget"],
        moderate: ["mid-priced", "not too fancy but not cheap either"],
        upscale: ["somewhere fancy", "for a special occasion, money no object"],
      }),
    ],
    reply: ([area, cuisine, people]) => `Found 6 ${String(cuisine)} restaurants in ${String(area)}${people === undefined ? "" : ` with tables for ${String(people)}`}.`,
  },
  {
    names: ["search_flights", "find_flights", "flightSearch"],
    description: "Searches flights between two airports on a date.",
    purpose: "search for flights",
    leads: ["find flights", "look up flights", "search for a flight", "I need to fly"],
    slots: [
      textSlot(["from_airport", "origin", "departure_airport"], "Airport code to leave from", true, ["LIS", "OPO", "DUB", "AMS", "CPH", "VIE", "BRU", "ZRH"], [as("from"), as("leaving from")]),
      textSlot(["to_airport", "destination", "arrival_airport"], "Airport code to fly to", true, ["BCN", "FCO", "ARN", "HEL", "ATH", "KRK", "OSL", "NCE"], [as("to"), as("landing at")]),
      dateSlot(["date", "departure_date", "departureDate"], "Day of the flight", true, [as("on"), as("leaving")]),
      choiceSlot(["cabin", "seat_class", "cabinClass"], "Cabin", false, {
        economy: ["in the cheapest seats", "in coach", "economy is fine"],
        premium_economy: ["with a bit more legroom than economy", "premium economy"],
        business: ["in business", "with a lie-flat seat at the front"],
      }),
      numberSlot(["passengers", "adults"], "Number of travellers", false, { low: 1, high: 6 }, [(n) => `for ${n} passenger${n === 1 ? "" : "s"}`, (n) => `${n} of us travelling`]),
    ],
    reply: ([from, to, date]) => `5 flights from ${String(from)} to ${String(to)} on ${String(date)}, the cheapest at 89 euros.`,
  },
  {
    names: ["translate_text", "translate", "translateText"],
    description: "Translates a text into another language.",
    purpose: "translate text",
    leads: ["translate", "how do you say", "put this into another language:"],
    slots: [
      textSlot(["text", "source_text", "sentence"], "The text to translate, word for word", true, ["Where is the train station?", "I would like a table for two", "The meeting is moved to Thursday", "Thank you for your help", "My luggage did not arrive"], [(text) => `"${text}"`]),
      choiceSlot(["target_language", "targetLang", "to"], "Language code to translate into", true, {
        fr: ["into French", "in French"],
        de: ["into German", "in German"],
        es: ["into Spanish", "so someone in Madrid understands it"],
        it: ["into Italian", "in Italian"],
        ja: ["into Japanese", "for my friend in Tokyo, in Japanese"],
        pt: ["into Portuguese", "in Portuguese"],
      }),
      choiceSlot(["formality", "tone"], "Register of the translation", false, {
        formal: ["politely, as to a stranger", "in a formal tone"],
        informal: ["casually, as to a friend", "in an informal tone"],
      }),
    ],
    reply: ([text, language]) => `Translated "${String(text)}" into ${String(language)}.`,
  },
  {
    names: ["create_playlist", "make_playlist", "buildPlaylist"],
    description: "Makes a playlist of songs in the given genres.",
    purpose: "make playlists",
    leads: ["make me a playlist", "put together a playlist", "create a mix"],
    slots: [
      textSlot(["name", "title", "playlist_name"], "The playlist's name", true, ["Sunday Morning", "Road Trip North", "Focus Hours", "Kitchen Disco", "Rainy Evenings"], [(name) => `called ${name}`, (name) => `named "${name}"`]),
      listSlot(["genres", "styles"], "Genres to include", true, ["jazz", "funk", "bossa nova", "indie rock", "soul", "reggae", "folk", "house", "blues"], [(list) => `with ${list}`, (list) => `mixing ${list}`]),
      numberSlot(["length_minutes", "duration", "minutes"], "How long, in minutes", false, { low: 30, high: 180, step: 15 }, [(n) => `about ${n} minutes long`, (n) => `lasting ${n} minutes`]),
      flagSlot(["explicit_allowed", "allowExplicit"], "Whether songs with explicit lyrics may be included", false, ["explicit lyrics are ok", "swearing is fine"], ["clean versions only", "nothing explicit, the kids will listen"]),
    ],
    reply: ([name, genres]) => `Made "${String(name)}" with 32 songs of ${spokenList((genres as string[] | undefined) ?? [])}.`,
  },
  {
    names: ["schedule_meeting", "book_meeting", "scheduleMeeting"],
    description: "Puts a meeting in the shared calendar and invites people.",
    purpose: "schedule meetings",
    leads: ["set up a meeting", "schedule a call", "book a meeting", "arrange a meeting"],
    slots: [
      textSlot(["topic", "subject", "title"], "What the meeting is about", true, ["Q3 roadmap", "budget sign-off", "onboarding plan", "website relaunch", "supplier review"], [(topic) => `about the ${topic}`, (topic) => `on the ${topic}`]),
      listSlot(["attendees", "participants", "invitees"], "People to invite, by full name", true, PEOPLE, [(list) => `with ${list}`, (list) => `inviting ${list}`]),
      dateSlot(["date", "meeting_date", "day"], "Day of the meeting", true, [as("on"), (date) => `for ${date}`]),
      numberSlot(["duration_minutes", "durationMinutes", "length"], "Length in minutes", false, { low: 15, high: 120, step: 15 }, [(n) => `for ${n} minutes`, (n) => `lasting ${n} minutes`]),
      flagSlot(["video_link", "addVideoLink"], "Whether to add a video call link", false, ["with a video link", "online, add a video call"], ["in person, no video link", "no video call needed"]),
    ],
    reply: ([topic, attendees, date]) => `Scheduled "${String(topic)}" on ${String(date)} with ${spokenList((attendees as string[] | undefined) ?? [])}.`,
  },
  {
    names: ["open_support_ticket", "create_ticket", "fileSupportRequest"],
    description: "Opens a ticket with the IT help desk.",
    purpose: "open help desk tickets",
    leads: ["open a ticket", "tell the help desk", "log an IT issue", "raise a support request"],
    slots: [
      textSlot(["summary", "issue", "problem"], "Short description of the problem, as the user said it", true, ["printer on floor 3 jams", "laptop will not charge", "cannot log in to the VPN", "screen flickers after the update", "email stuck in the outbox"], [(issue) => `that the ${issue}`, (issue) => `saying ${issue}`]),
      choiceSlot(["priority", "urgency", "severity"], "How urgent", true, {
        low: ["no rush", "whenever they have time", "it's minor"],
        medium: ["fairly soon", "it's annoying but I can work"],
        high: ["urgent", "as soon as possible, I can't work", "it's blocking me"],
      }),
      choiceSlot(["category", "area"], "Kind of problem", false, {
        hardware: ["it's a device problem", "the machine itself is faulty"],
        software: ["it's an app problem", "something with the programs"],
        network: ["it's the connection", "the internet seems to be the issue"],
      }),
    ],
    reply: ([summary, priority]) => `Opened ticket HD-4821 (${String(priority)}): ${String(summary)}.`,
  },
  {
    names: ["export_report", "download_report", "exportReport"],
    description: "Exports a saved report as a file.",
    purpose: "export reports",
    leads: ["export the report", "download the report", "save the report as a file"],
    slots: [
      textSlot(["report_name", "report", "name"], "Name of the saved report", true, ["Monthly Sales", "Churn by Region", "Open Orders", "Team Hours", "Ad Spend Summary"], [(name) => `"${name}"`, (name) => `called ${name}`]),
      choiceSlot(["format", "file_format", "fileType"], "File format", true, {
        pdf: ["so I can print it", "as a PDF"],
        csv: ["as comma-separated values", "as plain CSV"],
        xlsx: ["as an Excel spreadsheet", "so I can open it in Excel"],
      }),
      flagSlot(["include_charts", "withCharts"], "Whether to include the charts", false, ["with the charts", "including the graphs"], ["without the charts", "just the numbers, no graphs"]),
    ],
    reply: ([name, format]) => `Exported "${String(name)}" as ${String(format)}.`,
  },
  {
    names: ["order_groceries", "grocery_order", "placeGroceryOrder"],
    description: "Orders groceries for home delivery.",
    purpose: "order groceries",
    leads: ["order groceries", "get groceries delivered", "I need some shopping delivered"],
    slots: [
      listSlot(["items", "products", "shopping_list"], "The items, as written", true, ["sourdough bread", "free-range eggs", "greek yogurt", "cherry tomatoes", "basmati rice", "olive oil", "bananas", "oat milk", "cheddar cheese"], [(list) => `: ${list}`, (list) => `with ${list}`]),
      choiceSlot(["delivery_speed", "deliverySpeed", "speed"], "How fast to deliver", false, {
        express: ["within the hour", "as fast as you can"],
        standard: ["whenever today is fine", "no hurry on delivery"],
        scheduled: ["for a delivery slot I pick later", "booked for a set time"],
      }),
      flagSlot(["allow_substitutes", "substitutions"], "Whether the shop may replace missing items", false, ["swaps are fine if something's missing", "substitutes allowed"], ["no substitutes", "don't replace anything that's out"]),
    ],
    reply: ([items]) => `Ordered ${spokenList((items as string[] | undefined) ?? [])}; delivery confirmed.`,
  },
  {
    names: ["set_up_recurring_payment", "create_standing_order", "recurringPayment"],
    description: "Sets up a payment that repeats from the user's account.",
    purpose: "set up repeating payments",
    leads: ["set up a standing order", "pay someone regularly", "create a repeating payment"],
    slots: [
      textSlot(["payee", "recipient", "to"], "Who gets paid, full name", true, PEOPLE, [as("to"), (name) => `for ${name}`]),
      numberSlot(["amount", "amount_eur", "sum"], "Amount in euros", true, { low: 10, high: 900, step: 5 }, [(n) => `of ${n} euros`, (n) => `€${n}`, (n) => `for ${n} EUR`]),
      choiceSlot(["frequency", "interval", "repeat"], "How often", true, {
        weekly: ["every week", "once a week"],
        monthly: ["every month", "once a month", "on the same day each month"],
        quarterly: ["every three months", "four times a year"],
        yearly: ["once a year", "every year"],
      }),
      dateSlot(["start_date", "startDate", "first_payment"], "Day of the first payment", false, [(date) => `starting ${date}`, (date) => `from ${date}`]),
    ],
    reply: ([payee, amount, frequency]) => `Set up ${String(frequency)} payments of ${String(amount)} euros to ${String(payee)}.`,
  },
  {
    names: ["search_news", "find_articles", "newsSearch"],
    description: "Searches recent news articles.",
    purpose: "search the news",
    leads: ["find news", "search the news", "any articles", "look up recent stories"],
    slots: [
      listSlot(["keywords", "topics", "terms"], "Words to search for", true, ["heat pumps", "rail strikes", "housing prices", "electric ferries", "school meals", "coral reefs", "chip factories"], [(list) => `about ${list}`, (list) => `on ${list}`], { low: 1, high: 3 }),
      choiceSlot(["language", "lang"], "Language code of the articles", false, {
        en: ["in English", "English-language"],
        de: ["in German", "from German papers"],
        fr: ["in French", "from the French press"],
        nl: ["in Dutch", "from Dutch outlets"],
      }),
      numberSlot(["max_results", "limit", "count"], "How many articles", false, { low: 3, high: 20 }, [(n) => `just the top ${n}`, (n) => `${n} of them`, (n) => `at most ${n} results`]),
      choiceSlot(["sort_by", "sortBy", "order"], "Order of results", false, {
        newest: ["latest first", "most recent first"],
        relevance: ["best matches first", "most relevant first"],
      }),
    ],
    reply: ([keywords]) => `12 articles about ${spokenList((keywords as string[] | undefined) ?? [])} from the last week.`,
  },
  {
    names: ["search_apartments", "find_rentals", "apartmentSearch"],
    description: "Searches flats to rent.",
    purpose: "search for flats to rent",
    leads: ["find me a flat", "look for an apartment to rent", "search rentals", "I'm looking for a place to rent"],
    slots: [
      textSlot(["city", "location", "area"], "Town to live in", true, TOWNS, [as("in"), (town) => `somewhere in ${town}`]),
      numberSlot(["bedrooms", "min_bedrooms", "rooms"], "Bedrooms at least", true, { low: 1, high: 4 }, [(n) => `with ${n} bedroom${n === 1 ? "" : "s"}`, (n) => `${n}-bedroom`]),
      numberSlot(["max_rent", "maxRent", "budget"], "Highest monthly rent in euros", false, { low: 600, high: 2500, step: 50 }, [(n) => `up to ${n} a month`, (n) => `under €${n} monthly`]),
      flagSlot(["pets_allowed", "petsAllowed"], "Whether pets must be allowed", false, ["where my dog is welcome", "that allows pets"], ["no pets needed", "pets don't matter, I have none"]),
      flagSlot(["furnished", "is_furnished"], "Whether it comes furnished", false, ["already furnished", "with furniture"], ["unfurnished", "empty, I have my own furniture"]),
    ],
    reply: ([city, bedrooms]) => `9 flats in ${String(city)} with at least ${String(bedrooms)} bedrooms.`,
  },
  {
    names: ["book_fitness_class", "reserve_class", "bookClass"],
    description: "Books a place in a group fitness class.",
    purpose: "book fitness classes",
    leads: ["book me into a class", "sign me up for a class", "reserve a spot in a class"],
    slots: [
      choiceSlot(["class_type", "classType", "activity"], "Kind of class", true, {
        spinning: ["on the stationary bikes", "an indoor cycling session"],
        pilates: ["working on the core with reformers", "pilates"],
        boxing: ["with punching bags and gloves", "boxing"],
        hiit: ["short intense intervals", "a high-intensity interval session"],
      }),
      choiceSlot(["time_of_day", "slot", "timeOfDay"], "Part of the day", true, {
        morning: ["before work", "early, around 7", "in the morning"],
        lunchtime: ["during my lunch break", "around noon"],
        evening: ["after work", "tonight after 6"],
      }),
      choiceSlot(["level", "difficulty"], "Level", false, {
        beginner: ["I'm new to this", "for a complete beginner"],
        intermediate: ["I've done a few", "not my first time"],
        advanced: ["make it tough, I'm experienced", "for advanced people"],
      }),
    ],
    reply: ([kind, time]) => `Booked a ${String(kind)} class in the ${String(time)} slot.`,
  },
  {
    names: ["send_parcel", "ship_package", "createShipment"],
    description: "Books a courier to send a parcel.",
    purpose: "send parcels",
    leads: ["send a parcel", "ship a package", "book a courier"],
    slots: [
      textSlot(["recipient_address", "address", "to_address"], "Delivery address, as written", true, ADDRESSES, [as("to"), (address) => `for delivery at ${address}`]),
      numberSlot(["weight_kg", "weightKg", "weight"], "Weight in kilograms", true, { low: 0.5, high: 20, step: 0.5, integer: false }, [(n) => `weighing ${n} kg`, (n) => `of ${n} kilos`]),
      choiceSlot(["service", "speed", "shipping_speed"], "Delivery service", false, {
        next_day: ["to arrive tomorrow", "overnight"],
        standard: ["the normal way, a few days is fine", "no rush on it"],
        economy: ["the slowest and cheapest way", "cheapest option, takes however long"],
      }),
      flagSlot(["signature_required", "requireSignature"], "Whether the recipient must sign", false, ["they must sign for it", "with a signature on delivery"], ["no signature needed", "can be left at the door"]),
    ],
    reply: ([address, weight]) => `Courier booked for a ${String(weight)} kg parcel to ${String(address)}.`,
  },
  {
    names: ["create_poll", "start_poll", "newPoll"],
    description: "Starts a poll in a group chat.",
    purpose: "start polls",
    leads: ["start a poll", "make a poll", "ask the group to vote"],
    slots: [
      textSlot(["question", "prompt"], "The question, as written", true, ["Where should we eat on Friday?", "Which weekend works for the trip?", "What film for movie night?", "Who brings the barbecue?"], [(question) => `asking "${question}"`, (question) => `with the question ${question}`]),
      listSlot(["options", "choices", "answers"], "The answers to choose from", true, ["the pizza place", "the noodle bar", "March 7", "March 14", "a comedy", "a thriller", "Ana", "Ben", "Carla"], [(list) => `with the options ${list}`, (list) => `choices: ${list}`], { low: 2, high: 4 }),
      flagSlot(["multiple_answers", "allowMultiple"], "Whether people may pick more than one", false, ["people can pick several", "more than one vote each"], ["one vote each", "single choice only"]),
    ],
    reply: ([question]) => `Poll started: "${String(question)}".`,
  },
  {
    names: ["generate_password", "make_password", "newPassword"],
    description: "Generates a random password.",
    purpose: "generate passwords",
    leads: ["make me a password", "generate a new password", "I need a strong password"],
    slots: [
      numberSlot(["length", "characters", "num_chars"], "Number of characters", true, { low: 8, high: 40 }, [(n) => `${n} characters long`, (n) => `of length ${n}`, (n) => `with ${n} characters`]),
      flagSlot(["include_symbols", "useSymbols", "symbols"], "Whether to use symbols", false, ["with symbols like # and !", "including special characters"], ["letters and digits only", "no special characters"]),
      flagSlot(["avoid_ambiguous", "noLookalikes"], "Whether to leave out characters that look alike", false, ["without look-alike characters like O and 0", "easy to read out loud"], ["any characters are fine", "look-alikes are ok"]),
    ],
    reply: ([length]) => `Generated a ${String(length)}-character password and copied it to the clipboard.`,
  },
];
