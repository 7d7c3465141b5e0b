"""User messages tried on the seven yes/no declines: only the wh-part, only the yes/no part (written by hand)."""
from judged_rag.prompts import generate as p
from judged_rag.core.documents import numbered
WH = {
 "hb-yes-no-14": "How many days of paid time off for exams am I allowed?",
 "hb-yes-no-02": "What is the nightly hotel limit?",
 "hb-yes-no-04": "Up to how many extra hours may I build up?",
 "hb-yes-no-05": "What is the time limit for claiming an expense?",
 "hb-yes-no-08": "Up to what amount may I claim a small purchase without a receipt?",
 "hb-yes-no-11": "How much notice is needed to book a two-week holiday?",
 "hb-yes-no-13": "How much must I travel to get a company phone?",
}
YN = {
 "hb-yes-no-14": "Am I allowed paid time off for exams?",
 "hb-yes-no-02": "Am I allowed to book any hotel?",
 "hb-yes-no-04": "May I build up extra hours?",
 "hb-yes-no-05": "Can I still claim an expense from last quarter?",
 "hb-yes-no-08": "May I claim a small purchase without a receipt?",
 "hb-yes-no-11": "May I book a two-week holiday at short notice?",
 "hb-yes-no-13": "Can I get a company phone?",
}
def wh(docs, q):
    k = [i for i, v in YN.items() if q.startswith(v[:-1])][0]
    return p.USER.format(documents=numbered(docs), question=WH[k], options='')
def yn(docs, q):
    k = [i for i, v in YN.items() if q.startswith(v[:-1])][0]
    return p.USER.format(documents=numbered(docs), question=YN[k], options='')
VARIANTS = {"wh": (p.OPEN_WITH_KNOWLEDGE, wh), "yn": (p.OPEN_WITH_KNOWLEDGE, yn)}
