# Measures tree sizes with OpenSpiel (pip install open_spiel) for reference/openspiel.json.
# Dark Hex infosets use the information-state tensor: the string is not perfect recall for cdh.
import pyspiel, json, sys
def counts(name, use_tensor):
    g=pyspiel.load_game(name)
    h=t=0; inf=[set(),set()]
    stack=[g.new_initial_state()]
    while stack:
        s=stack.pop(); h+=1
        if s.is_terminal(): t+=1; continue
        if s.is_chance_node():
            for a,_ in s.chance_outcomes(): stack.append(s.child(a))
            continue
        p=s.current_player()
        key = tuple(s.information_state_tensor(p)) if use_tensor else s.information_state_string(p)
        inf[p].add(key)
        for a in s.legal_actions(): stack.append(s.child(a))
    return dict(histories=h, terminals=t, infosets=[len(inf[0]),len(inf[1])])
out={}
for name,tensor in [("hex(num_rows=2,num_cols=2)",False),("hex(num_rows=2,num_cols=3)",False),("hex(num_rows=3,num_cols=3)",False),
    ("dark_hex(num_rows=3,num_cols=2)",True),("dark_hex(num_rows=3,num_cols=2,gameversion=adh)",True),
    ("dark_hex(num_rows=2,num_cols=2,obstype=reveal-numturns)",True),("dark_hex(num_rows=2,num_cols=2,gameversion=adh,obstype=reveal-numturns)",True),
    ("dark_hex(num_rows=2,num_cols=3,gameversion=adh,obstype=reveal-numturns)",True),("dark_hex(num_rows=1,num_cols=3)",True),("dark_hex(num_rows=3,num_cols=1,gameversion=adh)",True)]:
    out[name]=counts(name,tensor); print(name,out[name],flush=True)
json.dump(out,open('openspiel_counts.json','w'),indent=1)
