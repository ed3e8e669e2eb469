-- BORSch §2's WorldCuisines coverage (issue 48), from the dish links.
--
-- §2: "the food-dishes originating from Russia and Ukraine in WorldCuisines cover only 20.8% of the dishes
-- originating from Russia and Ukraine that we provide in BORSch", computed from the dish links (the `link` step,
-- core.dish_links). Per BORSch file (`lang` ru or uk) and over both (`all`: a parallel pair is one dish, §3.5):
-- n_dishes BORSch dishes with Russia or Ukraine among their origins; n_covered those linked (over both files:
-- either record of a pair) to a WorldCuisines dish with Russia or Ukraine among its own origins (the paper's
-- wording), share =
-- n_covered / n_dishes; n_linked_any / share_linked_any those linked to any WorldCuisines dish (ours, beside it:
-- a link does not check the linked record's origin). `published` is the paper's printed 0.208. The paper does not
-- say how it matched the two datasets' dishes; ours are the link step's (parallel, exact, alias, translit, fuzzy).
CREATE OR REPLACE TABLE marts.borsch_worldcuisines_coverage AS
WITH borsch AS (
    SELECT d.dish_key, d.lang,
           coalesce((SELECT min(p.pair_id) FROM core.parallel_dishes p
                     WHERE d.dish_key IN (p.ru_dish_key, p.uk_dish_key))::VARCHAR, d.dish_key) AS dish
    FROM core.dishes d
    WHERE d.dataset = 'borsch'
      AND EXISTS (SELECT 1 FROM core.dish_origins o WHERE o.dish_key = d.dish_key AND o.country IN ('RU', 'UA'))
), links AS (
    SELECT l.dish_key, l.linked_dish_key FROM core.dish_links l
    UNION
    SELECT l.linked_dish_key, l.dish_key FROM core.dish_links l
), covered AS (
    SELECT b.dish_key, b.lang, b.dish,
           bool_or(w.dataset = 'worldcuisines') AS linked_any,
           bool_or(w.dataset = 'worldcuisines' AND EXISTS (
               SELECT 1 FROM core.dish_origins o WHERE o.dish_key = w.dish_key AND o.country IN ('RU', 'UA')
           )) AS linked_ru_ua
    FROM borsch b
    LEFT JOIN links l ON l.dish_key = b.dish_key
    LEFT JOIN core.dishes w ON w.dish_key = l.linked_dish_key
    GROUP BY ALL
), per_dish AS (
    SELECT lang AS scope, dish, coalesce(linked_any, false) AS linked_any,
           coalesce(linked_ru_ua, false) AS linked_ru_ua
    FROM covered
    UNION ALL
    SELECT 'all', dish, coalesce(bool_or(linked_any), false), coalesce(bool_or(linked_ru_ua), false)
    FROM covered GROUP BY dish
)
SELECT scope, count(*)::BIGINT AS n_dishes, count(*) FILTER (linked_ru_ua)::BIGINT AS n_covered,
       count(*) FILTER (linked_ru_ua) / count(*) AS share,
       count(*) FILTER (linked_any)::BIGINT AS n_linked_any, count(*) FILTER (linked_any) / count(*) AS share_linked_any,
       0.208::DOUBLE AS published,
       (SELECT count(*) FROM core.dishes WHERE dataset = 'worldcuisines')::BIGINT AS n_worldcuisines_dishes
FROM per_dish
GROUP BY scope
ORDER BY scope = 'all' DESC, scope;
