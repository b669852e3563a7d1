#include "repair/rank.h"

#include <string.h>

int gr_fix_cost(const gr_fix_candidate *c) {
    static const int kind_cost[] = {
        [GR_FIX_SCOPE] = 1, [GR_FIX_ATOMIC] = 2,  [GR_FIX_SYNCWARP] = 3, [GR_FIX_BARRIER] = 4,
        [GR_FIX_SPLIT] = 5, [GR_FIX_FENCE] = 6,   [GR_FIX_HOIST] = 7,    [GR_FIX_REMOVE_BARRIER] = 9,
    };
    int lines = 0;
    for (int i = 0; i < c->patch.nedits; i++)
        lines += c->patch.edits[i].nremove + gr_text_lines(c->patch.edits[i].text);
    return kind_cost[c->kind] * 100 + lines;
}

void gr_fix_rank(gr_fix_candidates *c) {
    /* insertion sort: a handful of candidates, and it keeps generation order among equals */
    for (int i = 1; i < c->n; i++) {
        gr_fix_candidate x = c->items[i];
        int cost = gr_fix_cost(&x), j = i - 1;
        while (j >= 0 && gr_fix_cost(&c->items[j]) > cost) {
            c->items[j + 1] = c->items[j];
            j--;
        }
        c->items[j + 1] = x;
    }
}
