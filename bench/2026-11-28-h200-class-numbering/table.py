"""The README's class-map table from a time_classes.py CSV, beside an
earlier run's (its `label_classes` and ratio as "before"):

  python3 table.py NEW.csv BEFORE.csv
"""

import csv
import sys


def rows(path):
    out = {}
    for r in csv.DictReader(open(path)):
        out[(r["input"], r["connectivity"], r["density"], r["granularity"], r["call"].replace(" batch", ""))] = r
    return out


new, before = rows(sys.argv[1]), rows(sys.argv[2])
order = {"8192^2 cupy": 0, "512^3 cupy": 1, "256x512^2 cupy": 2}
keys = sorted({k[:4] for k in new if k[0] in order}, key=lambda k: (order[k[0]], int(k[1]), int(k[2]), int(k[3])))
print("| input | conn | d % | g | binary `label` ms | `label_classes` ms | × binary | before ms (× binary) | cupyx label per class ms |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for k in keys:
    binary = new[k + ("label (binary)",)]
    classes = new[k + ("label_classes",)]
    old = before.get(k + ("label_classes",))
    cupyx = new.get(k + ("cupyx label per class",))
    ratio = float(classes["ratio_to_binary"])
    mark = "" if ratio <= 1.5 else "**"
    name = k[0].replace("^2", "²").replace("^3", "³").replace("x512", "×512")
    print(f"| {name} | {k[1]} | {k[2]} | {k[3]} | {float(binary['ms']):.2f} | {float(classes['ms']):.2f} | "
          f"{mark}{ratio:.2f}{mark} | {float(old['ms']):.2f} ({float(old['ratio_to_binary']):.2f}) | "
          f"{float(cupyx['ms']):.2f} |" if cupyx else
          f"| {name} | {k[1]} | {k[2]} | {k[3]} | {float(binary['ms']):.2f} | {float(classes['ms']):.2f} | "
          f"{mark}{ratio:.2f}{mark} | {float(old['ms']):.2f} ({float(old['ratio_to_binary']):.2f}) | – |")
