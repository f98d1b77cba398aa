"""Asynchronous training with ParameterServerStrategy: chief, workers, ps and
an evaluator, one script for every role (TF_CONFIG's task says which).

- ps and workers run TensorFlow's gRPC server on the port TF_CONFIG gives them
  and serve until they are stopped;
- the chief creates the variables on the parameter servers, schedules
  training steps on the workers (ClusterCoordinator), saves checkpoints in
  $DLP_OUTPUT_DIR/checkpoints and ends the job: ps.yaml's successPolicy
  ({roles: [chief]}) makes the job succeed when the chief exits 0, and stops
  the servers;
- the evaluator (outside TF_CONFIG's cluster) scores each checkpoint on the
  test set; the chief waits, up to --eval-timeout seconds, for the score of
  its last checkpoint.
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fashion_mnist  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch", type=int, default=64, help="per step")
    parser.add_argument("--lr", type=float, default=0.2)
    parser.add_argument("--checkpoint-every", type=int, default=20)
    parser.add_argument("--eval-timeout", type=float, default=120)
    parser.add_argument("--output", default=os.environ.get("DLP_OUTPUT_DIR", "."))
    return parser.parse_args()


def model_variables():
    """A softmax classifier's weights and the count of steps applied to them."""
    return {"w": tf.Variable(tf.zeros([fashion_mnist.PIXELS, fashion_mnist.CLASSES]), name="w"),
            "b": tf.Variable(tf.zeros([fashion_mnist.CLASSES]), name="b"),
            "steps": tf.Variable(0, dtype=tf.int64, name="steps")}


def logits(variables, x):
    return tf.matmul(x, variables["w"]) + variables["b"]


def serve(resolver):
    task = resolver.task_type
    server = tf.distribute.Server(resolver.cluster_spec(), job_name=task,
                                  task_index=resolver.task_id, protocol="grpc", start=True)
    print(f"{task} {resolver.task_id} serving", flush=True)
    server.join()


def train(resolver, args):
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        variables = model_variables()

    def dataset_fn():
        images, labels = fashion_mnist.load("train", limit=4096)
        return tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(4096).repeat() \
            .batch(args.batch)

    iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))

    @tf.function
    def step(iterator):
        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    y, logits(variables, x)))
            grads = tape.gradient(loss, [variables["w"], variables["b"]])
            variables["w"].assign_sub(args.lr * grads[0])
            variables["b"].assign_sub(args.lr * grads[1])
            variables["steps"].assign_add(1)
            return loss

        return strategy.run(replica_step, args=next(iterator))

    checkpoints = os.path.join(args.output, "checkpoints")
    checkpoint = tf.train.Checkpoint(**variables)
    manager = tf.train.CheckpointManager(checkpoint, checkpoints, max_to_keep=3)
    losses = []
    for done in range(args.checkpoint_every, args.steps + 1, args.checkpoint_every):
        results = [coordinator.schedule(step, args=(iterator,))
                   for _ in range(args.checkpoint_every)]
        coordinator.join()
        losses.append(float(results[-1].fetch()))
        manager.save(checkpoint_number=done)
    steps = int(variables["steps"].numpy())
    score = wait_for_score(checkpoints, steps, args.eval_timeout)
    fashion_mnist.report(role="chief", steps=steps, losses=losses,
                         devices=sorted({v.device for v in variables.values()}),
                         workers=len(resolver.cluster_spec().as_dict().get("worker", [])),
                         evaluated=score, tensorflow=tf.__version__)


def score_path(checkpoints, steps):
    return os.path.join(checkpoints, f"score-{steps}.json")


def wait_for_score(checkpoints, steps, timeout):
    path = score_path(checkpoints, steps)
    deadline = time.monotonic() + timeout
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.2)
    return json.load(open(path)) if os.path.exists(path) else None


def evaluate(args):
    images, labels = fashion_mnist.load("t10k", limit=2000)
    variables = model_variables()
    checkpoint = tf.train.Checkpoint(**variables)
    checkpoints = os.path.join(args.output, "checkpoints")
    os.makedirs(checkpoints, exist_ok=True)
    for path in tf.train.checkpoints_iterator(checkpoints, min_interval_secs=0.2):
        checkpoint.restore(path).expect_partial()
        predicted = tf.argmax(logits(variables, images), axis=1)
        accuracy = float(tf.reduce_mean(tf.cast(predicted == labels, tf.float32)))
        steps = int(variables["steps"].numpy())
        score = {"checkpoint": os.path.basename(path), "steps": steps, "accuracy": accuracy}
        print("evaluated " + json.dumps(score), flush=True)
        with open(score_path(checkpoints, steps) + ".tmp", "w") as f:
            json.dump(score, f)
        os.replace(score_path(checkpoints, steps) + ".tmp", score_path(checkpoints, steps))


def main():
    args = parse_args()
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    if resolver.task_type in ("worker", "ps"):
        serve(resolver)
    elif resolver.task_type == "evaluator":
        evaluate(args)
    else:
        train(resolver, args)


if __name__ == "__main__":
    main()
