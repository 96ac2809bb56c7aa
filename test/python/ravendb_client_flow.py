"""The official RavenDB Python client's flow against the RavenDB API test server.

Run by test/fidelity/ravendb-python.test.mjs with the interpreter of the venv that
`make python-deps` builds (ravendb 7.2.7 from PyPI, pinned in test/python/requirements.txt):

    .run/py/bin/python test/python/ravendb_client_flow.py http://127.0.0.1:PORT DBNAME

Every step uses the client's public API only (no raw HTTP), exactly as an application
would. The script prints ONE JSON object on stdout with what each step observed; the
Node test asserts the values, so a step that silently does nothing cannot pass.
A client exception ends the script with exit code 1 and the traceback on stderr.
"""
import json
import sys

from ravendb import DocumentStore
from ravendb.documents.bulk_insert_operation import BulkInsertOptions
from ravendb.documents.indexes.definitions import IndexDefinition
from ravendb.documents.operations.indexes import GetIndexNamesOperation, PutIndexesOperation
from ravendb.documents.operations.statistics import GetCollectionStatisticsOperation, GetStatisticsOperation
from ravendb.exceptions.raven_exceptions import ConcurrencyException
from ravendb.serverwide.database_record import DatabaseRecord
from ravendb.serverwide.operations.common import CreateDatabaseOperation, DeleteDatabaseOperation


class User:
    def __init__(self, name: str = None, email: str = None, age: int = None):
        self.name = name
        self.email = email
        self.age = age


def main(url: str, database: str) -> dict:
    out = {}
    store = DocumentStore([url], database)
    store.initialize()
    try:
        # 1. create the database (DatabasePutResult carries the topology the server sent)
        put = store.maintenance.server.send(CreateDatabaseOperation(DatabaseRecord(database)))
        out["create"] = {
            "name": put.name,
            "members": put.topology.members,
            "replication_factor": put.topology.replication_factor,
            "topology_id": put.topology.database_topology_id_base_64,
        }

        # 2. a static index
        index = IndexDefinition()
        index.name = "Users/ByEmail"
        index.maps = {"from u in docs.Users select new { u.email, u.age }"}
        res = store.maintenance.send(PutIndexesOperation(index))
        out["index"] = {"put": [r["Index"] for r in res["Results"]], "names": store.maintenance.send(GetIndexNamesOperation(0, 10))}

        # 3. session store / load
        with store.open_session() as session:
            session.store(User("Ada", "ada@example.org", 36), "users/1")
            session.store(User("Alan", "alan@example.org", 41), "users/2")
            session.save_changes()
        with store.open_session() as session:
            u1 = session.load("users/1", User)
            missing = session.load("users/404", User)
            out["load"] = {"name": u1.name, "age": u1.age, "missing_is_none": missing is None}

        # 4. optimistic concurrency: two sessions change the same document, the second fails
        s1 = store.open_session()
        s2 = store.open_session()
        s1.advanced.use_optimistic_concurrency = True
        s2.advanced.use_optimistic_concurrency = True
        a = s1.load("users/1", User)
        b = s2.load("users/1", User)
        a.age = 37
        s1.save_changes()
        b.age = 99
        conflict = None
        try:
            s2.save_changes()
        except ConcurrencyException as e:
            conflict = type(e).__name__
        s1.close()
        s2.close()
        with store.open_session() as session:
            out["concurrency"] = {"second_save": conflict, "age_after": session.load("users/1", User).age}

        # 5. bulk insert, plain and gzip
        with store.bulk_insert() as bulk:
            for i in range(1000):
                bulk.store_as(User(f"plain{i}", f"p{i}@example.org", i), f"users/plain/{i}")
        with store.bulk_insert(options=BulkInsertOptions(use_compression=True)) as bulk:
            for i in range(500):
                bulk.store_as(User(f"gzip{i}", f"g{i}@example.org", i), f"users/gzip/{i}")
        with store.open_session() as session:
            out["bulk"] = {"plain_999": session.load("users/plain/999", User).name,
                           "gzip_499": session.load("users/gzip/499", User).name}

        # 6. statistics (users/1, users/2 and the 1500 bulk-inserted documents)
        stats = store.maintenance.send(GetStatisticsOperation())
        coll = store.maintenance.send(GetCollectionStatisticsOperation())
        out["stats"] = {"documents": stats.count_of_documents, "indexes": stats.count_of_indexes,
                        "collections": coll.collections}

        # 7. delete a document, then the database
        with store.open_session() as session:
            session.delete("users/2")
            session.save_changes()
        with store.open_session() as session:
            out["delete_doc"] = {"users_2_is_none": session.load("users/2", User) is None}
        deleted = store.maintenance.server.send(DeleteDatabaseOperation(database, hard_delete=True))
        out["delete_db"] = {"raft_index_positive": deleted.raft_command_index > 0}
    finally:
        store.close()
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
