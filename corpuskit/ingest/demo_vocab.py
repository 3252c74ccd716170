"""Word lists of the demo corpus: beats, their entities and sub-themes, sentiment sentences.

Everything here is plain data read by :mod:`corpuskit.ingest.demo`. Rules the
lists keep (``tests/test_demo.py`` checks them):

* Every word outside the sentiment sentences is neutral for VADER, so a
  record's VADER compound comes from the sentiment sentences planted in it.
* Entity names are unique, none is a word-bounded part of another, and none
  of them occurs in the non-entity text; capitalised words in the
  templates are sentence starts only.
* The novel entities of the planted events occur nowhere else.
"""
from __future__ import annotations

# Beat definitions: exactly the keys the enrichment stage loads from datasets/demo/beats.json.
BEATS = [
    {
        "name": "ai-models",
        "displayName": "AI Models & Compute",
        "description": "Language models, open weights releases, training compute, benchmarks and agents.",
        "category": "technology",
        "keywords": ["language model", "open weights", "gpu", "inference", "benchmark",
                     "fine-tuning", "alignment", "training run", "agents", "datacenter"],
        "subreddits": ["MachineLearning", "LocalLLaMA", "artificial"],
        "active": True,
    },
    {
        "name": "climate-energy",
        "displayName": "Climate & Energy",
        "description": "Renewables, grids and batteries, emissions rules, heat and weather extremes.",
        "category": "environment",
        "keywords": ["offshore wind", "solar", "battery storage", "grid", "emissions",
                     "heat pump", "turbine", "methane", "renewables", "transmission line"],
        "subreddits": ["climate", "energy", "RenewableEnergy"],
        "active": True,
    },
    {
        "name": "markets-economy",
        "displayName": "Markets & Economy",
        "description": "Central banks and rates, jobs data, earnings, crypto trading and housing.",
        "category": "business",
        "keywords": ["rate decision", "bond yields", "inflation", "jobs report", "payrolls",
                     "earnings", "guidance", "stablecoin", "mortgage rates", "housing starts"],
        "subreddits": ["economics", "investing", "stocks"],
        "active": True,
    },
    {
        "name": "space",
        "displayName": "Space & Astronomy",
        "description": "Launches and boosters, telescopes and observations, lunar missions, orbital traffic.",
        "category": "science",
        "keywords": ["launch", "booster", "orbit", "telescope", "exoplanet", "lunar lander",
                     "satellite", "galaxy", "spacecraft", "astronauts"],
        "subreddits": ["space", "spacex", "astronomy"],
        "active": True,
    },
    {
        "name": "health-biotech",
        "displayName": "Health & Biotech",
        "description": "Obesity drugs, gene editing, vaccines, clinical trials and drug pricing.",
        "category": "science",
        "keywords": ["clinical trial", "vaccine", "gene therapy", "gene editing", "prescriptions",
                     "obesity drug", "dosing", "patients", "biotech", "drug pricing"],
        "subreddits": ["medicine", "biotech", "health"],
        "active": True,
    },
    {
        "name": "cybersecurity",
        "displayName": "Cybersecurity",
        "description": "Ransomware crews, patches and zero-days, logins and passkeys, privacy and tracking.",
        "category": "technology",
        "keywords": ["ransomware", "zero-day", "patch", "phishing", "passkey", "encryption",
                     "malware", "firmware", "data retention", "cybersecurity"],
        "subreddits": ["cybersecurity", "netsec", "privacy"],
        "active": True,
    },
    {
        "name": "consumer-tech",
        "displayName": "Devices & Gadgets",
        "description": "Phones, wearables and headsets, handheld consoles, mobile chips and repairability.",
        "category": "technology",
        "keywords": ["smartphone", "battery life", "smartwatch", "headset", "handheld",
                     "console", "mobile chip", "foldable", "earbuds", "repairability"],
        "subreddits": ["gadgets", "apple", "Android"],
        "active": True,
    },
]

BEAT_NAMES = [b["name"] for b in BEATS]

# Relative daily volume of each beat (the off-beat chatter is a fixed share on top).
BEAT_WEIGHTS = {
    "ai-models": 1.3, "climate-energy": 1.0, "markets-economy": 1.1, "space": 0.9,
    "health-biotech": 1.0, "cybersecurity": 0.9, "consumer-tech": 1.0,
}

SOURCES = ("reddit", "twitter", "bluesky", "news", "hackernews", "youtube", "arxiv")

# Share of each source within a beat (rows sum to anything; normalised when used).
SOURCE_SHARES = {
    "ai-models":       {"reddit": 24, "twitter": 16, "bluesky": 12, "news": 12, "hackernews": 18, "youtube": 8, "arxiv": 10},
    "climate-energy":  {"reddit": 24, "twitter": 18, "bluesky": 16, "news": 22, "hackernews": 6, "youtube": 9, "arxiv": 5},
    "markets-economy": {"reddit": 26, "twitter": 22, "bluesky": 10, "news": 24, "hackernews": 6, "youtube": 9, "arxiv": 3},
    "space":           {"reddit": 26, "twitter": 18, "bluesky": 12, "news": 16, "hackernews": 7, "youtube": 14, "arxiv": 7},
    "health-biotech":  {"reddit": 24, "twitter": 18, "bluesky": 14, "news": 24, "hackernews": 5, "youtube": 8, "arxiv": 7},
    "cybersecurity":   {"reddit": 24, "twitter": 17, "bluesky": 12, "news": 15, "hackernews": 20, "youtube": 6, "arxiv": 6},
    "consumer-tech":   {"reddit": 28, "twitter": 18, "bluesky": 12, "news": 14, "hackernews": 8, "youtube": 18, "arxiv": 2},
    None:              {"reddit": 34, "twitter": 26, "bluesky": 20, "news": 6, "hackernews": 6, "youtube": 8, "arxiv": 0},
}

# Sentiment mix (positive, neutral, negative) outside events.
BASE_MIX = {
    "ai-models": (0.40, 0.35, 0.25), "climate-energy": (0.35, 0.37, 0.28),
    "markets-economy": (0.33, 0.40, 0.27), "space": (0.45, 0.35, 0.20),
    "health-biotech": (0.37, 0.38, 0.25), "cybersecurity": (0.28, 0.40, 0.32),
    "consumer-tech": (0.42, 0.33, 0.25), None: (0.45, 0.40, 0.15),
}

# Entities per beat. Types: person, org, product, place, concept.
ENTITIES = {
    "ai-models": {
        "person": ["Maya Lindqvist", "Tomas Okafor", "Priya Raman", "Daniel Hartley", "Yuki Tanabe", "Lena Fischer"],
        "org": ["OpenAI", "Anthropic", "Nvidia", "Cohere", "Mistral AI", "DeepMind"],
        "product": ["ChatGPT", "Claude", "Gemini", "Llama", "CUDA"],
        "place": ["San Francisco", "Paris", "Taiwan", "Zurich"],
        "concept": ["AGI", "RLHF"],
    },
    "climate-energy": {
        "person": ["Ingrid Solberg", "Marcus Bello", "Aisha Kamara", "Rafael Costa", "Hannah Whitaker", "Sven Aalto"],
        "org": ["Orsted", "Vestas", "IEA", "Shell", "Greenpeace", "NOAA"],
        "product": ["Powerwall", "Megapack", "Hornsea Two"],
        "place": ["Norway", "Texas", "Kenya", "Iceland", "North Sea"],
        "concept": ["Net Zero", "Carbon Capture"],
    },
    "markets-economy": {
        "person": ["Gregory Walsh", "Nadia Petrova", "Olivia Chen", "Samuel Adeyemi", "Victor Lindgren", "Carmen Ruiz"],
        "org": ["Federal Reserve", "Goldman Sachs", "JPMorgan", "BlackRock", "IMF", "ECB"],
        "product": ["Bloomberg Terminal", "Venmo", "Robinhood Gold"],
        "place": ["New York", "Frankfurt", "Tokyo", "Singapore"],
        "concept": ["Modern Monetary Theory", "Stagflation", "Bitcoin", "Universal Basic Income"],
    },
    "space": {
        "person": ["Jonah Whitfield", "Amara Nwosu", "Kenji Mori", "Sofia Marin", "Lucas Brandt", "Rachel Abernathy"],
        "org": ["NASA", "SpaceX", "ESA", "Blue Origin", "Rocket Lab", "JAXA"],
        "product": ["Starship", "Falcon 9", "James Webb Space Telescope", "Artemis II", "New Glenn"],
        "place": ["Cape Canaveral", "Houston", "Kourou", "Mars"],
        "concept": ["Cosmic Dawn", "Kessler Syndrome"],
    },
    "health-biotech": {
        "person": ["Omar Haddad", "Gloria Mbeki", "Felix Novak", "Hiroshi Sato", "Beatrice Lund", "Aaron Goldberg"],
        "org": ["Pfizer", "Moderna", "WHO", "FDA", "Novartis", "CDC"],
        "product": ["Ozempic", "Wegovy", "Paxlovid", "Keytruda"],
        "place": ["Geneva", "Boston", "India", "Brazil"],
        "concept": ["CRISPR", "mRNA", "Herd Immunity"],
    },
    "cybersecurity": {
        "person": ["Nikolai Ivanov", "Chloe Barrett", "Arjun Mehta", "Tessa Lambert", "Jamal Wright", "Paulo Mendes"],
        "org": ["CrowdStrike", "Microsoft", "CISA", "Mandiant", "Cloudflare", "Europol"],
        "product": ["Windows", "Azure", "Chrome", "OpenSSL"],
        "place": ["Washington", "Moscow", "Tel Aviv", "Amsterdam"],
        "concept": ["Post-Quantum Cryptography", "SBOM"],
    },
    "consumer-tech": {
        "person": ["Bianca Moretti", "Ethan Caldwell", "Min-jun Park", "Zara Hussain", "Oscar Delgado", "Freya Holm"],
        "org": ["Apple", "Samsung", "Sony", "Qualcomm", "Xiaomi", "Valve"],
        "product": ["iPhone 17", "Galaxy S26", "PlayStation 5", "Steam Deck", "AirPods Pro", "Snapdragon"],
        "place": ["Cupertino", "Seoul", "Shenzhen", "Berlin"],
        "concept": ["Right to Repair"],
    },
}

# Places any beat (and the off-beat chatter) may mention.
COMMON_PLACES = ["London", "Toronto", "Sydney", "Chicago"]

# The names that only the planted novelty events use (first seen on their event's first day).
NOVEL_ENTITIES = [("Kestrel Robotics", "org"), ("Elena Varga", "person")]

# Recurring sub-themes of each beat: lower-case noun phrases, each carrying beat vocabulary.
THEMES = {
    "ai-models": {
        "open-weights": ["an open weights release", "the new model weights", "a permissive model license",
                         "community fine-tuning of open weights", "quantized language model builds"],
        "compute": ["new inference chips", "a larger gpu cluster", "datacenter power contracts",
                    "the next training run", "gpu rental prices"],
        "benchmarks": ["the latest benchmark results", "reasoning benchmark scores", "a new evaluation suite",
                       "benchmark contamination checks", "long context benchmark numbers"],
        "agents": ["coding agents", "autonomous agents for developers", "tool use in language models",
                   "agents that browse the web", "agent frameworks for enterprises"],
        "alignment": ["alignment research", "model evaluations before release", "red teaming of frontier models",
                      "interpretability research on language model internals"],
    },
    "climate-energy": {
        "offshore-wind": ["offshore wind auctions", "turbine installations at sea", "a new offshore wind farm",
                          "turbine blade supply", "floating offshore wind platforms"],
        "storage": ["battery storage projects", "rooftop solar installations", "grid-scale battery storage",
                    "home battery adoption", "solar panel tariffs"],
        "emissions": ["emissions targets for heavy industry", "methane monitoring satellites",
                      "a carbon border tax", "emissions reporting rules", "methane plume detection"],
        "grid": ["transmission line permits", "heat pump installations", "grid interconnection queues",
                 "electricity prices for households", "renewables on the grid"],
        "weather": ["the heatwave outlook", "record ocean temperatures", "the summer rainfall data",
                    "the storm season forecast", "glacier melt measurements"],
    },
    "markets-economy": {
        "rates": ["the next rate decision", "bond yields", "the inflation report", "the rate path for next year",
                  "core inflation numbers"],
        "jobs": ["the jobs report", "payrolls data", "wage figures", "hiring in manufacturing",
                 "the jobless rate"],
        "earnings": ["quarterly earnings", "revenue guidance", "the earnings call", "stock buybacks",
                     "earnings estimates for banks"],
        "crypto": ["crypto trading volumes", "stablecoin rules", "exchange listings of new tokens",
                   "stablecoin reserves", "mining costs for tokens"],
        "housing": ["mortgage rates", "housing starts", "home prices in big cities", "rent indexes",
                    "housing starts and permits"],
    },
    "space": {
        "launches": ["the next launch window", "a booster landing", "the launch cadence",
                     "a static test of the booster", "payloads headed to orbit"],
        "telescopes": ["deep field images from the telescope", "exoplanet atmosphere observations",
                       "new telescope data on distant galaxy clusters", "a galaxy survey", "telescope time allocations"],
        "lunar": ["the lunar lander schedule", "crewed lunar missions", "lunar surface samples",
                  "astronauts training for the lunar lander", "spacecraft docking tests"],
        "orbit": ["orbital debris tracking", "satellite megaconstellations",
                  "satellite maneuvers in crowded orbit", "spectrum allocation for satellite networks"],
    },
    "health-biotech": {
        "obesity": ["obesity drug prescriptions", "the obesity drug supply", "dosing guidance for obesity drug patients",
                    "insurance coverage of obesity drug prescriptions", "pharmacy stock of injectable drugs"],
        "gene": ["gene editing trials", "a gene therapy filing", "base editing results in patients",
                 "cell therapy manufacturing", "gene therapy pricing"],
        "vaccines": ["the vaccine rollout", "booster recommendations", "vaccine trial enrollment",
                     "the seasonal vaccine schedule", "vaccine manufacturing capacity"],
        "trials": ["phase three clinical trial data", "clinical trial results", "drug pricing negotiations",
                   "hospital staffing levels", "biotech funding rounds"],
    },
    "cybersecurity": {
        "ransomware": ["a ransomware campaign against hospitals", "ransomware payments", "ransomware crews",
                       "a phishing campaign", "malware hidden in browser extensions"],
        "patches": ["a zero-day patch", "the monthly patch release", "an out-of-band browser patch",
                    "firmware updates for routers", "zero-day disclosures"],
        "identity": ["passkey adoption", "login prompts and passkey recovery", "password managers",
                     "phishing tests for employees", "passkey options in browsers"],
        "privacy": ["data retention rules", "tracking cookies", "end-to-end encryption for messaging",
                    "encryption backdoor proposals", "data retention by apps"],
    },
    "consumer-tech": {
        "phones": ["the new smartphone lineup", "battery life tests", "smartphone camera upgrades",
                   "foldable smartphone screens", "smartphone charging speeds"],
        "wearables": ["smartwatch sensors", "headset displays", "earbuds features", "smartwatch battery life",
                      "mixed reality headset apps"],
        "gaming": ["handheld console sales", "console pricing", "game streaming on handheld devices",
                   "console controller designs", "handheld battery life"],
        "chips": ["mobile chip benchmarks", "on-device language features", "modem chips",
                  "mobile chip thermals", "mobile chip power draw"],
        "repair": ["repairability scores", "spare parts pricing", "battery replacement programs",
                   "software update windows for older phones", "repairability of foldable phones"],
    },
}

# Lower-case hashtags for the short-post sources.
HASHTAGS = {
    "ai-models": ["#llm", "#machinelearning", "#opensource"],
    "climate-energy": ["#climate", "#cleantech", "#renewables"],
    "markets-economy": ["#markets", "#economy", "#investing"],
    "space": ["#space", "#astronomy", "#launch"],
    "health-biotech": ["#health", "#biotech", "#medicine"],
    "cybersecurity": ["#infosec", "#cybersecurity", "#privacy"],
    "consumer-tech": ["#gadgets", "#tech", "#smartphones"],
    None: ["#weekend", "#life"],
}

# arXiv categories per beat.
ARXIV_CATEGORIES = {
    "ai-models": ["cs.LG", "cs.CL", "cs.AI"], "climate-energy": ["physics.ao-ph", "eess.SY"],
    "markets-economy": ["q-fin.GN", "econ.GN"], "space": ["astro-ph.GA", "astro-ph.EP", "astro-ph.IM"],
    "health-biotech": ["q-bio.GN", "q-bio.QM"], "cybersecurity": ["cs.CR"], "consumer-tech": ["cs.HC", "eess.SP"],
}

SUBREDDITS_OFFBEAT = ["CasualConversation", "AskReddit", "books", "Cooking"]

# -- verbs and sentence templates ---------------------------------------------
# Slots: {org} {person} {product} {place} {concept} {novel} (an entity; a trailing _pos makes it
# possessive), {obj} {obj2} (theme noun phrases), {kw} (a beat keyword).
ORG_VERBS = ["announced", "unveiled", "published details on", "confirmed plans for", "is investing in",
             "released an update on", "is testing", "opened a review of", "published a roadmap for",
             "is expanding work on", "outlined changes to"]
PERSON_VERBS = ["wrote about", "commented on", "outlined a view on", "posted notes on",
                "presented research on", "posted a long thread on", "gave a talk on", "answered questions about"]
PRODUCT_VERBS = ["now ships with changes tied to", "is part of the plan for", "shows up in the numbers on",
                 "gets an update centred on", "is central to"]

TITLE_TEMPLATES = [
    "{org} {org_verb} {obj}",
    "{person} {person_verb} {obj}",
    "{product} {product_verb} {obj}",
    "{org_pos} plan for {obj}",
    "What {obj} means for {org}",
    "{org} and {obj} in {place}",
    "Inside {org_pos} work on {obj}",
    "{person} on {obj} and {obj2}",
]

FACT_TEMPLATES = [
    "{org} {org_verb} {obj}.",
    "{person} {person_verb} {obj}.",
    "{product} {product_verb} {obj}.",
    "In {place}, {org} {org_verb} {obj}.",
    "{person} said {org_pos} work on {obj} will shape {obj2}.",
    "{org_pos} plan covers {obj} in {place}.",
    "The focus is on {obj} and {obj2}.",
    "Analysts are tracking {obj} closely.",
    "{concept} comes up again in the discussion of {obj}.",
    "There is a new thread on {obj} with links to {kw} data.",
    "The {kw} angle is central here, especially for {obj}.",
    "According to {person}, {obj} will be a topic at the next meeting in {place}.",
    "{product} and {obj} were mentioned in the same update from {org}.",
]

# Sentences that carry the record's sentiment (the only VADER-scored words of a record).
POSITIVE_SENTENCES = [
    "This is great news.",
    "Really impressive work, love to see it.",
    "This is an excellent step forward.",
    "People seem genuinely happy about it.",
    "A huge win for everyone involved.",
    "The results look fantastic.",
    "Great to see real progress here.",
    "This is a brilliant move and the reaction is very positive.",
    "So excited about where this is going, amazing.",
    "Strong, encouraging results all around.",
    "Best update in a long time, really glad about this.",
    "Wonderful to see this finally happen.",
]
NEGATIVE_SENTENCES = [
    "This is terrible news.",
    "What a disappointing mess.",
    "This is an awful decision.",
    "People are angry and frustrated about it.",
    "A complete failure for everyone involved.",
    "The results look really bad.",
    "This is a disaster waiting to happen.",
    "I am worried this will hurt a lot of people.",
    "Sad to see such a poor outcome.",
    "The backlash is harsh and the criticism is brutal.",
    "Worst update in a long time, really upset about this.",
    "Horrible to see this happen again.",
]
NEUTRAL_SENTENCES = [
    "More details are expected in the coming weeks.",
    "The full report is linked below.",
    "Here is a summary of what was announced.",
    "The announcement includes a timeline and a list of partners.",
    "Documentation for the change was published the same day.",
    "Further updates will follow.",
    "The figures cover the last quarter.",
    "A longer write-up is available on the project page.",
    "The schedule was posted in a short post.",
    "Slides from the session are online.",
]
POSITIVE_TITLE_TAILS = ["and people love it", "and the reaction is great", "looks excellent"]
NEGATIVE_TITLE_TAILS = ["and people hate it", "and the reaction is awful", "looks terrible"]

# Academic variants for arXiv abstracts.
PAPER_TITLE_TEMPLATES = [
    "A scalable approach to {obj}",
    "Measuring {obj} with {kw} data",
    "On {obj} and {obj2}",
    "Towards new models of {obj}",
    "An empirical study of {obj}",
]
PAPER_SENTENCES = [
    "We study {obj}.",
    "We propose a method for {obj} and evaluate it on {kw} data.",
    "Our analysis covers {obj2}.",
    "We compare against baselines built around {product}.",
    "Experiments use data collected in {place}.",
    "We relate the findings to {concept}.",
]
PAPER_POSITIVE = [
    "The results are excellent and show strong improvements over prior work.",
    "Our method achieves impressive gains and a clear improvement in accuracy.",
    "The findings are encouraging and the benefits are substantial.",
]
PAPER_NEGATIVE = [
    "The results are poor and the method fails in most settings.",
    "We find serious problems and the approach performs badly.",
    "The evaluation reveals weak performance and troubling errors.",
]
PAPER_NEUTRAL = [
    "Code and data are released with the paper.",
    "We describe the setup and the data in detail.",
    "The appendix lists every configuration.",
]

REDDIT_QUESTIONS = ["What do you think?", "Anyone following this closely?", "Wondering what others make of it.",
                    "Thoughts?", "Has anyone here looked at the details?"]

NEWS_LEADS = [
    "{org} {org_verb} {obj} on the record this week.",
    "In {place}, {org} {org_verb} {obj}.",
    "{person} {person_verb} {obj} in an interview.",
]

YOUTUBE_TITLES = [
    "{obj}: what {org} is doing",
    "Explaining {obj} in ten minutes",
    "{product} and {obj}, a closer look",
    "{person} on {obj}",
]
YOUTUBE_LINES = ["Chapters and sources are in the description.", "Recorded in the studio this week.",
                 "Links to the papers and posts are below."]

# Sentences used when a record is about a planted event's featured entity.
EVENT_SENTENCES = {
    "volume_spike": ["Everyone is talking about {featured} and {obj} today.",
                     "The news about {featured} and {obj} is all over the feeds.",
                     "Threads about {featured_pos} move on {obj} keep multiplying."],
    "sentiment_shift": ["The mood around {featured} and {obj} has turned.",
                        "Reactions to {featured_pos} handling of {obj} keep coming in."],
    "divergence": ["Opinions on {featured} and {obj} are split between communities.",
                   "The reaction to {featured_pos} news on {obj} depends on where you look."],
    "novelty": ["{featured} is a new name in the conversation about {obj}.",
                "Until this week few people had heard of {featured}, now the talk is about {obj}.",
                "{featured_pos} approach to {obj} is getting attention."],
}

# Off-beat chatter: no beat vocabulary, occasionally a common place.
OFFBEAT_SENTENCES = [
    "Just finished a long walk and made soup.",
    "Trying a new bread recipe this weekend.",
    "The train was quiet this morning.",
    "Reading a book about a lighthouse keeper.",
    "Anyone have a favourite podcast for long drives?",
    "Moved the plants to the window and they look greener.",
    "Spent the afternoon sorting old photos.",
    "The coffee place on the corner changed its menu.",
    "Visiting family in {place} next month.",
    "Rain all day in {place}, staying in with a book.",
]

OFFBEAT_TITLES = {
    "reddit": ["Small things from this week", "What is everyone cooking tonight?", "A slow weekend",
               "Photos from a long walk"],
    "youtube": ["A quiet day, a short vlog", "Baking bread at home", "Morning routine in the kitchen"],
    "news": ["Weekend notes from readers", "Letters: the corner shop", "Readers on their gardens"],
    "hackernews": ["Ask: what are you reading this month?", "Ask: how do you spend a slow weekend?"],
}

# Name parts for authors (never written into the text).
FIRST_NAMES = ["Alex", "Sam", "Jordan", "Taylor", "Morgan", "Casey", "Riley", "Jamie", "Robin", "Avery",
               "Quinn", "Drew", "Kai", "Noor", "Ines", "Mateo", "Leah", "Ravi", "Mina", "Owen"]
LAST_NAMES = ["Harper", "Ellis", "Moreau", "Kowalski", "Nakamura", "Osei", "Fernandes", "Lindholm",
              "Brooks", "Varma", "Quist", "Dunmore", "Achebe", "Sorensen", "Tran", "Whitlock"]
HANDLE_WORDS = ["quiet", "lemur", "orbit", "paper", "cedar", "falcon", "delta", "pixel", "maple", "tundra",
                "signal", "harbor", "cobalt", "fern", "lumen", "otter", "vector", "quartz", "birch", "comet"]
NEWS_OUTLETS = [("Global Wire", "globalwire.example.com"), ("Northern Ledger", "northernledger.example.com"),
                ("Tech Dispatch", "techdispatch.example.com"), ("Science Daily Brief", "sciencebrief.example.com"),
                ("Market Watchtower", "marketwatchtower.example.com"), ("Coastal Times", "coastaltimes.example.com")]
NEWS_SECTIONS = {"ai-models": "technology", "climate-energy": "environment", "markets-economy": "business",
                 "space": "science", "health-biotech": "health", "cybersecurity": "technology",
                 "consumer-tech": "technology", None: "lifestyle"}
YOUTUBE_CHANNELS = ["Orbital Explained", "Chip Talk Weekly", "Signal and Noise", "The Lab Bench",
                    "Market Minutes", "Gadget Desk", "Grid Watch", "Patch Notes TV"]
