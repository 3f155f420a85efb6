from setuptools import find_packages, setup

setup(
    name="isarcasm-baselines",
    version="0.1.0",
    description="Classic neural sarcasm detectors and a one-command reproduction of the iSarcasm (ACL 2020) baselines",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=find_packages(include=["preprocessing*", "embeddings*", "baselines*", "experiments*"]),
    package_data={"experiments.studies": ["tables/*.toml"], "preprocessing": ["wordlists/*.xz"]},
    install_requires=[
        "tensorflow>=2.16",
        "keras>=3.0",
        "spacy>=3.7",
        "gensim>=4.3",
        "numpy>=1.26",
        "scikit-learn>=1.4",
        "click>=8.1",
        "tqdm>=4.66",
        "nltk>=3.8",
        "matplotlib>=3.7",
        "scipy>=1.10",
        "markdown-it-py>=3.0",  # report --html
        "tabulate>=0.9",  # every text and markdown table (experiments/reports/format.py)
    ],
    extras_require={
        # pytest-xdist: `make test` runs the suite on every core (one test file per worker at a time, see the Makefile)
        "test": ["pytest>=8", "hypothesis>=6.100", "pytest-xdist>=3.5"],
        # --executor ray (experiments/runs/many/cluster.py); `make test` installs it so its tests run
        "ray": ["ray>=2.9"],
        # The other Keras backends (KERAS_BACKEND=jax|torch); TensorFlow stays the faithful default.
        # torch is pinned to the release whose CPU build is tested here: an unpinned torch pulls a multi-GB CUDA build.
        "backends": ["jax>=0.4", "torch==2.13.0"],
        # benchmark --keras-model examples/keras_hub_transformer.py: keras_hub's tokenizers and models
        # (it brings tensorflow-text, matched to the installed TensorFlow; keras and tensorflow are not upgraded).
        "hub": ["keras-hub>=0.32"],
        # Training on an NVIDIA GPU (Linux): TensorFlow's own CUDA and cuDNN libraries as pip packages, matched to the
        # TensorFlow release (docs/gpu.md; benchmarks/gpu_check.sh compares a GPU's numbers with the CPU's).
        "gpu": ["tensorflow[and-cuda]>=2.16"],
    },
    entry_points={"console_scripts": ["isarcasm=experiments.cli:main"]},
)
