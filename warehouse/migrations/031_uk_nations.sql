-- The UK's nations as their own gold, where a dataset names them. WorldCuisines gives "England",
-- "Scotland" and "Wales" as origins (kb/final_data.csv Countries) and as the answer of 10 task-2
-- questions; the country-level gold keeps GB (ISO 3166-1 gives the UK one code) and these tables
-- keep the nation (ISO 3166-2), so `uk_nation_match` can tell an English dish from a Scottish one.
-- Written by the dataset module, like the rest of its gold.
CREATE TABLE core.dish_origin_nations (
    dish_key TEXT NOT NULL,
    nation   TEXT NOT NULL CHECK (nation IN ('GB-ENG', 'GB-SCT', 'GB-WLS', 'GB-NIR')),
    PRIMARY KEY (dish_key, nation)
);

CREATE TABLE core.item_gold_nations (
    item_id TEXT NOT NULL,
    nation  TEXT NOT NULL CHECK (nation IN ('GB-ENG', 'GB-SCT', 'GB-WLS', 'GB-NIR')),
    PRIMARY KEY (item_id, nation)
);
